/*
 * The libwebsockets and OpenSSL surface that Swift imports.
 *
 * Swift cannot import function-like or OR-ed macros, so the few that the
 * transport needs are re-exported here as `static inline` functions.
 */
#ifndef LOCSTREAM_CWEBSOCKETS_SHIM_H
#define LOCSTREAM_CWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
#include <openssl/ssl.h>
#include <openssl/err.h>

/** Headroom lws needs in front of every buffer passed to lws_write. */
static inline size_t locstream_lws_pre(void) { return LWS_PRE; }

/** The write mode that sends bytes as they are: used for hand-framed batches. */
static inline enum lws_write_protocol locstream_write_raw(void) { return LWS_WRITE_RAW; }

/** Options for a server context: validate UTF-8, init OpenSSL when TLS is on. */
static inline uint64_t locstream_server_options(int tls) {
    uint64_t options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6
        | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
    if (tls) options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    return options;
}

/** The option that makes lws load its libev plugin and use a (foreign) libev loop. */
static inline uint64_t locstream_option_libev(void) { return LWS_SERVER_OPTION_LIBEV; }

/** Options for a client context: TLS is always initialised so wss:// works. */
static inline uint64_t locstream_client_options(void) {
    return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT | LWS_SERVER_OPTION_VALIDATE_UTF8;
}

/** Client connection flags for wss://, optionally accepting self-signed certificates. */
static inline int locstream_client_ssl_flags(int tls, int insecure) {
    if (!tls) return 0;
    int flags = LCCSCF_USE_SSL;
    if (insecure)
        flags |= LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK
            | LCCSCF_ALLOW_EXPIRED | LCCSCF_ALLOW_INSECURE;
    return flags;
}

/**
 * Why the certificate check failed a client's TLS handshake, in OpenSSL's words
 * ("self-signed certificate"), or NULL when the certificate was not the problem.
 */
static inline const char *locstream_tls_verify_failure(struct lws *wsi) {
    SSL *ssl = lws_get_ssl(wsi);
    if (!ssl) return NULL;
    long result = SSL_get_verify_result(ssl);
    return result == X509_V_OK ? NULL : X509_verify_cert_error_string(result);
}

#endif
