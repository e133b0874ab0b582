/*
 * The libcrypto surface that the Auth module imports: HMAC, public-key
 * decoding and signature verification, and constant-time comparison.
 *
 * Only non-deprecated OpenSSL 3 functions are used, so Swift sees no
 * deprecation warnings. Object-like macros that alias other macros are
 * re-exported as functions, so Swift does not depend on how they import.
 */
#ifndef LOCSTREAM_COPENSSL_SHIM_H
#define LOCSTREAM_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/** 1 when `key` is a plain RSA key (rsaEncryption; RSA-PSS-only keys are not). */
static inline int locstream_pkey_is_rsa(const EVP_PKEY *key) {
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
}

/** 1 when `key` is an elliptic-curve key on the named curve P-256 (prime256v1). */
static inline int locstream_pkey_is_p256(const EVP_PKEY *key) {
    char name[64];
    size_t length = 0;
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return 0;
    if (EVP_PKEY_get_group_name(key, name, sizeof name, &length) != 1) return 0;
    return OBJ_sn2nid(name) == NID_X9_62_prime256v1;
}

#endif
