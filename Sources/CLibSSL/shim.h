#ifndef CLIBSSL_SHIM_H
#define CLIBSSL_SHIM_H
// libssl is loaded with dlopen on the first https fetch, not linked: an offline run of
// jwt-inspect (most runs) then never maps it or resolves its symbols at start-up.
// libcrypto (errors, certificate messages) is linked as usual. Used by OIDCTLSTransport
// (jwt-inspect's client and LibSSLTransport).
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>

// (return type, name, parameters, arguments) of every libssl function the tool calls.
#define JOSE_SSL_FUNCTIONS(X) \
    X(const SSL_METHOD *, TLS_client_method, (void), ()) \
    X(SSL_CTX *, SSL_CTX_new, (const SSL_METHOD *method), (method)) \
    X(int, SSL_CTX_set_default_verify_paths, (SSL_CTX *context), (context)) \
    X(uint64_t, SSL_CTX_set_options, (SSL_CTX *context, uint64_t options), (context, options)) \
    X(long, SSL_CTX_ctrl, (SSL_CTX *context, int command, long value, void *pointer), (context, command, value, pointer)) \
    X(SSL *, SSL_new, (SSL_CTX *context), (context)) \
    X(int, SSL_set_fd, (SSL *ssl, int fd), (ssl, fd)) \
    X(int, SSL_get_fd, (const SSL *ssl), (ssl)) \
    X(long, SSL_ctrl, (SSL *ssl, int command, long value, void *pointer), (ssl, command, value, pointer)) \
    X(int, SSL_set1_host, (SSL *ssl, const char *host), (ssl, host)) \
    X(int, SSL_connect, (SSL *ssl), (ssl)) \
    X(long, SSL_get_verify_result, (const SSL *ssl), (ssl)) \
    X(int, SSL_write, (SSL *ssl, const void *bytes, int count), (ssl, bytes, count)) \
    X(int, SSL_read, (SSL *ssl, void *bytes, int count), (ssl, bytes, count)) \
    X(int, SSL_get_error, (const SSL *ssl, int result), (ssl, result)) \
    X(int, SSL_CTX_load_verify_locations, (SSL_CTX *context, const char *file, const char *path), (context, file, path)) \
    X(int, SSL_CTX_use_certificate_chain_file, (SSL_CTX *context, const char *file), (context, file)) \
    X(int, SSL_CTX_use_PrivateKey_file, (SSL_CTX *context, const char *file, int type), (context, file, type)) \
    X(int, SSL_CTX_check_private_key, (const SSL_CTX *context), (context)) \
    X(X509 *, SSL_CTX_get0_certificate, (const SSL_CTX *context), (context)) \
    X(X509_VERIFY_PARAM *, SSL_get0_param, (SSL *ssl), (ssl))

typedef struct {
#define JOSE_SSL_POINTER(type, name, parameters, arguments) type (*name) parameters;
    JOSE_SSL_FUNCTIONS(JOSE_SSL_POINTER)
#undef JOSE_SSL_POINTER
    void (*SSL_CTX_set_verify)(SSL_CTX *context, int mode, SSL_verify_cb callback);
    void (*SSL_CTX_free)(SSL_CTX *context);
    void (*SSL_free)(SSL *ssl);
    void (*SSL_CTX_set_default_passwd_cb)(SSL_CTX *context, pem_password_cb *callback);
} jose_ssl_table;

// The loaded table and whether it is complete (1) or unavailable (-1); function-local statics,
// since Swift's importer emits a header's static inline functions but not its static variables.
static inline jose_ssl_table *jose_ssl_loaded_table(void) {
    static jose_ssl_table table;
    return &table;
}
static inline int *jose_ssl_state(void) {
    static int state = -1;
    return &state;
}

static inline void jose_ssl_load_once(void) {
    static const char *const names[] = {
        "libssl.so.3", "libssl.3.dylib", "/opt/homebrew/opt/openssl@3/lib/libssl.3.dylib",
        "/usr/local/opt/openssl@3/lib/libssl.3.dylib", NULL,
    };
    jose_ssl_table table;
    void *handle = NULL;
    for (int i = 0; names[i] != NULL && handle == NULL; i++) handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    int complete = 1;
#define JOSE_SSL_RESOLVE(type, name, parameters, arguments) \
    table.name = (type (*) parameters)dlsym(handle, #name); complete = complete && table.name != NULL;
    JOSE_SSL_FUNCTIONS(JOSE_SSL_RESOLVE)
    JOSE_SSL_RESOLVE(void, SSL_CTX_set_verify, (SSL_CTX *, int, SSL_verify_cb), ())
    JOSE_SSL_RESOLVE(void, SSL_CTX_free, (SSL_CTX *), ())
    JOSE_SSL_RESOLVE(void, SSL_free, (SSL *), ())
    JOSE_SSL_RESOLVE(void, SSL_CTX_set_default_passwd_cb, (SSL_CTX *, pem_password_cb *), ())
#undef JOSE_SSL_RESOLVE
    if (!complete) return;
    *jose_ssl_loaded_table() = table;
    *jose_ssl_state() = 1;
}

// The loaded table, or NULL when libssl (OpenSSL 3) cannot be loaded. Loaded once, safely
// from any thread (pthread_once).
static inline const jose_ssl_table *jose_ssl_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, jose_ssl_load_once);
    return *jose_ssl_state() == 1 ? jose_ssl_loaded_table() : NULL;
}

// A passphrase callback that gives none: an encrypted private key fails to load instead of
// prompting on the terminal.
static int jose_ssl_no_passphrase(char *buffer, int size, int flag, void *user) {
    (void)buffer; (void)size; (void)flag; (void)user;
    return 0;
}

static inline void jose_ssl_ctx_refuse_passphrases(const jose_ssl_table *api, SSL_CTX *context) {
    api->SSL_CTX_set_default_passwd_cb(context, jose_ssl_no_passphrase);
}

// SSL_set_tlsext_host_name and SSL_CTX_set_min_proto_version are macros over the ctrl calls.
static inline int jose_ssl_set_sni(const jose_ssl_table *api, SSL *ssl, const char *name) {
    return (int)api->SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)name);
}

// Whether the failure at the top of the error queue is the peer ending the TCP stream without a
// TLS close_notify (OpenSSL 3 reports it as SSL_ERROR_SSL). Not hidden with SSL_OP_IGNORE_UNEXPECTED_EOF,
// which would make a cut look like a clean end: the HTTP reader then requires a framed body.
static inline int jose_ssl_error_is_unexpected_eof(void) {
    unsigned long error = ERR_peek_error();
    return ERR_GET_LIB(error) == ERR_LIB_SSL && ERR_GET_REASON(error) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
}

// TLS 1.2 is the lowest version offered.
static inline int jose_ssl_ctx_require_tls12(const jose_ssl_table *api, SSL_CTX *context) {
    return (int)api->SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
}
#endif
