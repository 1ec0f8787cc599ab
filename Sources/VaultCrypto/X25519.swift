import COpenSSL
import VaultCore

/// X25519 key agreement (RFC 7748) through OpenSSL's EVP_PKEY: a key pair whose private half is
/// `SecretBytes` (wiped when released), and the shared secret with a peer's public key.
public struct X25519KeyPair: Sendable {
    public static let keySize = 32

    public let publicKey: [UInt8]
    public let privateKey: SecretBytes

    /// A new key pair from OpenSSL's CSPRNG.
    public static func generate() throws -> X25519KeyPair {
        let privateKey = try SecretBytes(count: keySize, lockInMemory: true) { buffer in
            guard RAND_priv_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(keySize)) == 1 else {
                throw CryptoError.fromOpenSSL("RAND_priv_bytes")
            }
        }
        return try X25519KeyPair(privateKey: privateKey)
    }

    /// The pair of a stored private key (RFC 7748 clamps it; any 32 bytes are a key).
    public init(privateKey: SecretBytes) throws {
        guard privateKey.count == Self.keySize else { throw CryptoError.invalidParameters("an X25519 private key has 32 bytes") }
        let key = try Self.privateKey(privateKey)
        defer { EVP_PKEY_free(key) }
        var publicKey = [UInt8](repeating: 0, count: Self.keySize)
        var length = Self.keySize
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == Self.keySize else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_get_raw_public_key")
        }
        self.publicKey = publicKey
        self.privateKey = privateKey
    }

    /// The 32-byte shared secret with `peer`'s public key. A peer key of small order (which
    /// makes the secret all zeros, whatever our key) is refused.
    public func sharedSecret(with peer: [UInt8]) throws -> SecretBytes {
        guard peer.count == Self.keySize else { throw CryptoError.invalidParameters("an X25519 public key has 32 bytes, not \(peer.count)") }
        let ours = try Self.privateKey(privateKey)
        defer { EVP_PKEY_free(ours) }
        guard let theirs = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, peer.count) else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_new_raw_public_key")
        }
        defer { EVP_PKEY_free(theirs) }
        guard let context = EVP_PKEY_CTX_new(ours, nil) else { throw CryptoError.fromOpenSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, theirs) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_PKEY_derive_set_peer")
        }
        // OpenSSL refuses a small-order peer itself (the all-zero result) in derive.
        return try SecretBytes(count: Self.keySize, lockInMemory: true) { buffer in
            var length = Self.keySize
            guard EVP_PKEY_derive(context, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1, length == Self.keySize else {
                throw CryptoError.invalidParameters("no shared secret with this public key (a key of small order?)")
            }
        }
    }

    private static func privateKey(_ bytes: SecretBytes) throws -> OpaquePointer {
        let key = bytes.withUnsafeBytes { raw in
            EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count)
        }
        guard let key else { throw CryptoError.fromOpenSSL("EVP_PKEY_new_raw_private_key") }
        return key
    }
}
