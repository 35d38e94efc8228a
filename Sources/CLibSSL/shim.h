#ifndef CLIBSSL_SHIM_H
#define CLIBSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>

// SSL_set_tlsext_host_name is a macro Swift cannot import.
static inline int jose_ssl_set_sni(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
#endif
