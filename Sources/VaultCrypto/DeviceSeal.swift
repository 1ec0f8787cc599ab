import VaultCore

/// A secret sealed to one device's X25519 public key, so that only that device's private key
/// opens it (a space key given to an enrolled device): a fresh ephemeral key pair, the shared
/// secret through HKDF-SHA256 (salt: ephemeral public key ‖ recipient public key; info: the
/// label and `context`) to an AES-256-GCM key, `context` authenticated. With a `sender`, the
/// sender's static key is mixed in too (input: DH(ephemeral, recipient) ‖ DH(sender,
/// recipient); salt: … ‖ sender public key), so the seal also proves who made it: only the
/// holder of that device's private key could have. The sealed form is ephemeral public key (32)
/// ‖ nonce (12) ‖ ciphertext ‖ tag (16). docs/file-format.md ("Spaces") is the normative
/// description; the tests' independent decryptor reads it.
public enum DeviceSeal {
    static let label = Array("vault device seal v1".utf8)
    public static let overhead = X25519KeyPair.keySize + AESGCM.nonceSize + AESGCM.tagSize

    public static func seal(_ plaintext: SecretBytes, to recipient: [UInt8], from sender: X25519KeyPair? = nil, context: [UInt8]) throws -> [UInt8] {
        let ephemeral = try X25519KeyPair.generate()
        var shared = try ephemeral.sharedSecret(with: recipient)
        if let sender { shared = try joined(shared, sender.sharedSecret(with: recipient)) }
        let key = try self.key(shared, ephemeral: ephemeral.publicKey, recipient: recipient, sender: sender?.publicKey, context: context)
        let sealed = try plaintext.withUnsafeBytes { try AESGCM.sealCombined($0, key: key, authenticating: context) }
        return ephemeral.publicKey + sealed
    }

    /// Throws `CryptoError.authenticationFailed` for anything not sealed to `keyPair` with this
    /// `context`, or altered since.
    /// `sender`: the public key the seal must have been made with (nil: a seal without one).
    public static func open(_ sealed: [UInt8], with keyPair: X25519KeyPair, from sender: [UInt8]? = nil, context: [UInt8]) throws -> SecretBytes {
        guard sealed.count >= overhead else { throw CryptoError.authenticationFailed }
        let ephemeral = Array(sealed[0..<X25519KeyPair.keySize])
        var shared: SecretBytes
        do {
            shared = try keyPair.sharedSecret(with: ephemeral)
            if let sender { shared = try joined(shared, keyPair.sharedSecret(with: sender)) }
        } catch {
            throw CryptoError.authenticationFailed
        }
        let key = try self.key(shared, ephemeral: ephemeral, recipient: keyPair.publicKey, sender: sender, context: context)
        let rest = sealed[X25519KeyPair.keySize...]
        let nonceEnd = rest.startIndex + AESGCM.nonceSize
        let box = AESGCM.SealedBox(nonce: Array(rest[..<nonceEnd]), ciphertext: Array(rest[nonceEnd..<(rest.endIndex - AESGCM.tagSize)]),
                                   tag: Array(rest[(rest.endIndex - AESGCM.tagSize)...]))
        return try AESGCM.open(box, key: key, authenticating: context)
    }

    static func key(_ shared: SecretBytes, ephemeral: [UInt8], recipient: [UInt8], sender: [UInt8]?, context: [UInt8]) throws -> SecretBytes {
        try HKDF.sha256(shared, salt: ephemeral + recipient + (sender ?? []), info: label + [0] + context, count: AESGCM.keySize)
    }

    private static func joined(_ first: SecretBytes, _ second: SecretBytes) throws -> SecretBytes {
        try SecretBytes(count: first.count + second.count, lockInMemory: true) { buffer in
            first.withUnsafeBytes { buffer.copyMemory(from: $0) }
            second.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[first.count...]).copyMemory(from: $0) }
        }
    }
}
