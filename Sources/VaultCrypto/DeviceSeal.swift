import VaultCore

/// A secret sealed to one device's X25519 public key, so that only that device's private key
/// opens it (a space key given to an enrolled device): a fresh ephemeral key pair, the shared
/// secret through HKDF-SHA256 (salt: ephemeral public key ‖ recipient public key; info: the
/// label and `context`) to an AES-256-GCM key, `context` authenticated. The sealed form is
/// ephemeral public key (32) ‖ nonce (12) ‖ ciphertext ‖ tag (16). docs/file-format.md
/// ("Spaces") is the normative description; the tests' independent decryptor reads it.
public enum DeviceSeal {
    static let label = Array("vault device seal v1".utf8)
    public static let overhead = X25519KeyPair.keySize + AESGCM.nonceSize + AESGCM.tagSize

    public static func seal(_ plaintext: SecretBytes, to recipient: [UInt8], context: [UInt8]) throws -> [UInt8] {
        let ephemeral = try X25519KeyPair.generate()
        let key = try self.key(ephemeral.sharedSecret(with: recipient), ephemeral: ephemeral.publicKey, recipient: recipient, context: context)
        let sealed = try plaintext.withUnsafeBytes { try AESGCM.sealCombined($0, key: key, authenticating: context) }
        return ephemeral.publicKey + sealed
    }

    /// Throws `CryptoError.authenticationFailed` for anything not sealed to `keyPair` with this
    /// `context`, or altered since.
    public static func open(_ sealed: [UInt8], with keyPair: X25519KeyPair, context: [UInt8]) throws -> SecretBytes {
        guard sealed.count >= overhead else { throw CryptoError.authenticationFailed }
        let ephemeral = Array(sealed[0..<X25519KeyPair.keySize])
        let shared: SecretBytes
        do { shared = try keyPair.sharedSecret(with: ephemeral) } catch { throw CryptoError.authenticationFailed }
        let key = try self.key(shared, ephemeral: ephemeral, recipient: keyPair.publicKey, context: context)
        let rest = sealed[X25519KeyPair.keySize...]
        let nonceEnd = rest.startIndex + AESGCM.nonceSize
        let box = AESGCM.SealedBox(nonce: Array(rest[..<nonceEnd]), ciphertext: Array(rest[nonceEnd..<(rest.endIndex - AESGCM.tagSize)]),
                                   tag: Array(rest[(rest.endIndex - AESGCM.tagSize)...]))
        return try AESGCM.open(box, key: key, authenticating: context)
    }

    static func key(_ shared: SecretBytes, ephemeral: [UInt8], recipient: [UInt8], context: [UInt8]) throws -> SecretBytes {
        try HKDF.sha256(shared, salt: ephemeral + recipient, info: label + [0] + context, count: AESGCM.keySize)
    }
}
