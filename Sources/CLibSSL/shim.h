#ifndef CLIBSSL_SHIM_H
#define CLIBSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>

// SSL_set_tlsext_host_name is a macro Swift cannot import.
static inline int jose_ssl_set_sni(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// SSL_CTX_set_min_proto_version is a macro too: TLS 1.2 is the lowest version offered.
static inline int jose_ssl_ctx_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
#endif
