import COpenSSL
import VaultCore

/// RFC 5869 HKDF with SHA-256 (extract and expand) through OpenSSL's EVP_PKEY HKDF, and HMAC-SHA256.
public enum HKDF {
    /// `count` bytes (at most 255 × 32) from `key`, with `salt` and `info`.
    public static func sha256(_ key: SecretBytes, salt: [UInt8], info: [UInt8], count: Int) throws -> SecretBytes {
        guard count > 0, count <= 255 * 32 else { throw CryptoError.invalidParameters("HKDF-SHA256 gives 1 to 8160 bytes") }
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_new_id(HKDF)") }
        defer { EVP_PKEY_CTX_free(context) }
        let configured = key.withUnsafeBytes { raw in
            EVP_PKEY_derive_init(context) == 1
                && EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1
                && EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) == 1
                && EVP_PKEY_CTX_set1_hkdf_key(context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(raw.count)) == 1
                && EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) == 1
        }
        guard configured else { throw CryptoError.fromOpenSSL("HKDF parameters") }
        return try SecretBytes(count: count, lockInMemory: true) { buffer in
            var length = count
            guard EVP_PKEY_derive(context, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1, length == count else {
                throw CryptoError.fromOpenSSL("EVP_PKEY_derive(HKDF)")
            }
        }
    }

    /// HMAC-SHA256 of `message` under `key`: 32 bytes.
    public static func hmacSHA256(key: SecretBytes, _ message: [UInt8]) throws -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = key.withUnsafeBytes { raw in
            HMAC(EVP_sha256(), raw.baseAddress, Int32(raw.count), message, message.count, &mac, &length)
        }
        guard ok != nil, length == 32 else { throw CryptoError.fromOpenSSL("HMAC-SHA256") }
        return mac
    }
}
