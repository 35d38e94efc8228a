#ifndef CBASE64URL_H
#define CBASE64URL_H

#include <stddef.h>
#include <stdint.h>

/// Decodes whole 16-character blocks of unpadded Base64URL from the start of
/// `input` into `output`, 12 bytes per block, while at least 24 characters
/// remain (so each 16-byte store stays inside the caller's output buffer of
/// decoded-length + 1 bytes). Returns the number of characters consumed (a
/// multiple of 16; 0 when the CPU lacks SSSE3 or is not x86). `*invalid` is
/// set to 1 when a consumed character lies outside the URL-safe alphabet; the
/// caller then locates it. Reads and writes nothing outside the two buffers.
size_t cjose_base64url_decode_blocks(const uint8_t *input, size_t count, uint8_t *output, uint32_t *invalid);

/// Returns 1 when each of the `count` bytes at `input` is a `b64token` character of RFC 6750 §2.1
/// (`ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/"`; not the `=` padding), else 0; 1 for `count` 0.
/// Sixteen bytes per step with SSSE3 where the CPU has it. Reads nothing outside the buffer.
int cjose_all_b64token_characters(const uint8_t *input, size_t count);

#endif
