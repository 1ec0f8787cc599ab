import COpenSSL
import VaultCore

/// The Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` key agreement, as libsecret and
/// GNOME Keyring do it: Diffie-Hellman in RFC 2409's Second Oakley Group (1024-bit MODP,
/// generator 2), the shared secret as 128 big-endian bytes, HKDF-SHA256 without salt or info
/// to a 16-byte AES-128 key.
public enum SecretServiceKeyExchange {
    /// RFC 2409, section 6.2.
    static let primeHex = "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"
    public static let groupBytes = 128
    /// The length of our secret exponent. The group gives about 80 bits of security (the number
    /// field sieve on a 1024-bit prime); recovering an exponent of 256 bits costs 2^128 (Pollard's
    /// lambda), so a full-size exponent adds nothing but time: each of the two exponentiations
    /// costs a quarter of a full-size one.
    static let exponentBits = 256
    public static let keySize = 16

    /// A new key pair of ours and the AES key for the client's public key `peer`.
    public static func agree(peer: [UInt8]) throws -> (publicKey: [UInt8], key: SecretBytes) {
        let ours = try SecretServiceKeyPair()
        return (ours.publicKey, try agree(peer: peer, with: ours))
    }

    /// The AES key for the client's public key `peer` (big-endian, at most 128 bytes, from 2 to
    /// p - 2: 0, 1 and p - 1 would make the shared secret guessable) and our key pair `ours`,
    /// which is not to be used again.
    public static func agree(peer: [UInt8], with ours: SecretServiceKeyPair) throws -> SecretBytes {
        guard !peer.isEmpty, peer.count <= groupBytes else {
            throw CryptoError.invalidParameters("a DH public key has 1 to \(groupBytes) bytes, not \(peer.count)")
        }
        guard let context = BN_CTX_secure_new() else { throw CryptoError.fromOpenSSL("BN_CTX_secure_new") }
        defer { BN_CTX_free(context) }
        let prime = try prime()
        defer { BN_free(prime) }
        guard let two = BN_new(), let peerValue = BN_bin2bn(peer, Int32(peer.count), nil), let highest = BN_dup(prime),
              let shared = BN_secure_new()
        else { throw CryptoError.fromOpenSSL("BN_new") }
        defer { BN_free(two); BN_free(peerValue); BN_free(highest); BN_clear_free(shared) }
        // highest = p - 2; the peer's key must lie in [2, p - 2].
        guard BN_set_word(two, 2) == 1, BN_sub_word(highest, 2) == 1 else { throw CryptoError.fromOpenSSL("BN_sub_word") }
        guard BN_cmp(peerValue, two) >= 0, BN_cmp(peerValue, highest) <= 0 else {
            throw CryptoError.invalidParameters("the DH public key is outside 2 to p - 2")
        }
        guard BN_mod_exp_mont_consttime(shared, peerValue, ours.secret, prime, context, nil) == 1 else { throw CryptoError.fromOpenSSL("BN_mod_exp") }
        let sharedBytes = try SecretBytes(count: groupBytes) { buffer in
            guard BN_bn2binpad(shared, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(groupBytes)) == Int32(groupBytes) else {
                throw CryptoError.fromOpenSSL("BN_bn2binpad")
            }
        }
        return try hkdfSHA256(sharedBytes, count: keySize)
    }

    /// The group's prime p, a new BIGNUM (the caller frees it).
    static func prime() throws -> OpaquePointer {
        var prime: OpaquePointer? = nil
        guard BN_hex2bn(&prime, primeHex) != 0, let prime else { throw CryptoError.fromOpenSSL("BN_hex2bn") }
        return prime
    }

    /// RFC 5869 HKDF with SHA-256, no salt (32 zero bytes) and no info, for at most 32 bytes.
    public static func hkdfSHA256(_ input: SecretBytes, count: Int) throws -> SecretBytes {
        precondition(count <= 32)
        let salt = [UInt8](repeating: 0, count: 32)
        let pseudorandom = try SecretBytes(count: 32) { prk in
            var length: UInt32 = 0
            let ok = input.withUnsafeBytes { ikm in
                HMAC(EVP_sha256(), salt, Int32(salt.count), ikm.baseAddress?.assumingMemoryBound(to: UInt8.self), ikm.count,
                     prk.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
            }
            guard ok != nil, length == 32 else { throw CryptoError.fromOpenSSL("HMAC-SHA256") }
        }
        let block = try SecretBytes(count: 32) { okm in
            var length: UInt32 = 0
            let counter: [UInt8] = [1]
            let ok = pseudorandom.withUnsafeBytes { prk in
                HMAC(EVP_sha256(), prk.baseAddress, Int32(prk.count), counter, counter.count,
                     okm.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
            }
            guard ok != nil, length == 32 else { throw CryptoError.fromOpenSSL("HMAC-SHA256") }
        }
        return block.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<count]), lockInMemory: true) }
    }
}
