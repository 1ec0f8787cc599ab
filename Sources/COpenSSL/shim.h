#ifndef VAULT_COPENSSL_SHIM_H
#define VAULT_COPENSSL_SHIM_H

// Only libcrypto: AES-GCM, scrypt, SHA-256, the CSPRNG and memory cleansing.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/err.h>

#endif
