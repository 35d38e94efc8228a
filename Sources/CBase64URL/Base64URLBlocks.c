// SSSE3 decoding of Base64URL, 16 characters per step (the technique of
// W. Muła and D. Lemire, "Faster Base64 Encoding and Decoding Using AVX2
// Instructions", with lookup tables derived here for the URL-safe alphabet).
// Only whole blocks are decoded here; JOSE's Swift decoder handles the tail,
// the checks on length and trailing bits, and the error messages.
#include "CBase64URL.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__clang__) || defined(__GNUC__))
#include <tmmintrin.h>
#define CJOSE_HAVE_SSSE3_PATH 1

__attribute__((target("ssse3")))
static size_t decode_ssse3(const uint8_t *input, size_t count, uint8_t *output, uint32_t *invalid) {
    // Validity: a byte is outside the alphabet exactly when
    // lowTable[low nibble] & highTable[high nibble] != 0. High nibbles fall in
    // six groups with the same set of valid low nibbles (one bit each):
    //   bit 0: 0, 1, 8-F (none valid; bytes >= 0x80 land here)
    //   bit 1: 2 ('-' = 0x2D only)       bit 2: 3 ('0'-'9': 0-9)
    //   bit 3: 4, 6 ('A'-'O', 'a'-'o': 1-F)
    //   bit 4: 5 ('P'-'Z': 0-A, '_': F)  bit 5: 7 ('p'-'z': 0-A)
    // lowTable[l] holds the bits of the groups in which l is NOT valid.
    const __m128i lowTable = _mm_setr_epi8(0x0B, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03,
                                           0x03, 0x03, 0x07, 0x37, 0x37, 0x35, 0x37, 0x27);
    const __m128i highTable = _mm_setr_epi8(0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x08, 0x20,
                                            0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01);
    // Value = byte + offset by high nibble: '-' +17, digits +4, 'A'-'Z' -65,
    // 'a'-'z' -71; '_' (high nibble 5, like 'P'-'Z') is corrected by +33.
    const __m128i offsets = _mm_setr_epi8(0, 0, 17, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m128i underscore = _mm_set1_epi8('_');
    const __m128i underscoreFix = _mm_set1_epi8(33);
    // Four 6-bit values -> 24 bits: pairs (a * 64 + b), then pairs of pairs (ab * 4096 + cd).
    const __m128i mergePairs = _mm_set1_epi32(0x01400140);
    const __m128i mergeQuads = _mm_set1_epi32(0x00011000);
    // The three bytes of each 32-bit lane, most significant first.
    const __m128i gather = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);

    __m128i errors = _mm_setzero_si128();
    size_t in = 0, out = 0;
    while (in + 24 <= count) {
        const __m128i text = _mm_loadu_si128((const __m128i *)(input + in));
        const __m128i high = _mm_and_si128(_mm_srli_epi32(text, 4), nibble);
        const __m128i low = _mm_and_si128(text, nibble);
        errors = _mm_or_si128(errors, _mm_and_si128(_mm_shuffle_epi8(lowTable, low), _mm_shuffle_epi8(highTable, high)));
        __m128i offset = _mm_shuffle_epi8(offsets, high);
        offset = _mm_add_epi8(offset, _mm_and_si128(_mm_cmpeq_epi8(text, underscore), underscoreFix));
        const __m128i values = _mm_add_epi8(text, offset);
        const __m128i pairs = _mm_maddubs_epi16(values, mergePairs);
        const __m128i quads = _mm_madd_epi16(pairs, mergeQuads);
        _mm_storeu_si128((__m128i *)(output + out), _mm_shuffle_epi8(quads, gather));
        in += 16;
        out += 12;
    }
    *invalid = _mm_movemask_epi8(_mm_cmpeq_epi8(errors, _mm_setzero_si128())) != 0xFFFF;
    return in;
}
#endif

#ifdef CJOSE_HAVE_SSSE3_PATH
// Whether this CPU runs the SSSE3 paths; asked once. Racy but benign: every thread computes and stores the same value.
static int cpu_has_ssse3(void) {
    static int supported = -1;
    int known = __atomic_load_n(&supported, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("ssse3") ? 1 : 0;
        __atomic_store_n(&supported, known, __ATOMIC_RELAXED);
    }
    return known;
}
#endif

size_t cjose_base64url_decode_blocks(const uint8_t *input, size_t count, uint8_t *output, uint32_t *invalid) {
    *invalid = 0;
#ifdef CJOSE_HAVE_SSSE3_PATH
    if (cpu_has_ssse3()) return decode_ssse3(input, count, output, invalid);
#endif
    (void)input; (void)count; (void)output;
    return 0;
}

// b64token characters (RFC 6750 §2.1), checked with the nibble-table technique of the decoder above.
static int is_b64token_character(uint8_t byte) {
    return (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') ||
           byte == '-' || byte == '.' || byte == '_' || byte == '~' || byte == '+' || byte == '/';
}

#ifdef CJOSE_HAVE_SSSE3_PATH
__attribute__((target("ssse3")))
static size_t b64token_blocks_ssse3(const uint8_t *input, size_t count, int *valid) {
    // A byte is outside the set exactly when lowTable[low nibble] & highTable[high nibble] != 0.
    // High nibbles fall in six groups with the same valid low nibbles (one bit each):
    //   bit 0: 0, 1, 8-F (none)        bit 1: 2 ('+' B, '-' D, '.' E, '/' F)
    //   bit 2: 3 ('0'-'9': 0-9)         bit 3: 4, 6 ('A'-'O', 'a'-'o': 1-F)
    //   bit 4: 5 ('P'-'Z': 0-A, '_' F)  bit 5: 7 ('p'-'z': 0-A, '~' E)
    // lowTable[l] holds the bits of the groups in which l is NOT valid.
    const __m128i lowTable = _mm_setr_epi8(0x0B, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03,
                                           0x03, 0x03, 0x07, 0x35, 0x37, 0x35, 0x15, 0x25);
    const __m128i highTable = _mm_setr_epi8(0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x08, 0x20,
                                            0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01);
    const __m128i nibble = _mm_set1_epi8(0x0F);
    __m128i errors = _mm_setzero_si128();
    size_t in = 0;
    while (in + 16 <= count) {
        const __m128i text = _mm_loadu_si128((const __m128i *)(input + in));
        const __m128i high = _mm_and_si128(_mm_srli_epi32(text, 4), nibble);
        const __m128i low = _mm_and_si128(text, nibble);
        errors = _mm_or_si128(errors, _mm_and_si128(_mm_shuffle_epi8(lowTable, low), _mm_shuffle_epi8(highTable, high)));
        in += 16;
    }
    *valid = _mm_movemask_epi8(_mm_cmpeq_epi8(errors, _mm_setzero_si128())) == 0xFFFF;
    return in;
}
#endif

int cjose_all_b64token_characters(const uint8_t *input, size_t count) {
    size_t done = 0;
#ifdef CJOSE_HAVE_SSSE3_PATH
    if (cpu_has_ssse3()) {
        int valid = 1;
        done = b64token_blocks_ssse3(input, count, &valid);
        if (!valid) return 0;
    }
#endif
    for (size_t index = done; index < count; index++) {
        if (!is_b64token_character(input[index])) return 0;
    }
    return 1;
}
