#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
// OpenSSL 3.x libcrypto: only the non-deprecated EVP, provider-parameter,
// PEM/X.509 and BIO APIs are used from Swift.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/bn.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/objects.h>

// Selection masks are macro expressions Swift cannot import.
static inline int jose_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }
static inline int jose_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
#endif
