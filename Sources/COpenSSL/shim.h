#ifndef VAULT_COPENSSL_SHIM_H
#define VAULT_COPENSSL_SHIM_H

// Only libcrypto: AES-GCM, scrypt, SHA-256, the CSPRNG and memory cleansing; X25519 and HKDF
// for spaces (sealing a space key to a device); for the Secret
// Service provider's sessions, big numbers (DH), HMAC (HKDF) and AES-CBC.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/bn.h>
#include <openssl/hmac.h>

#endif
