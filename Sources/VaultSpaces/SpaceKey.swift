import VaultCore
import VaultCrypto

/// One generation of a space's key, and the keys derived from it with HKDF-SHA256 (salt: the
/// space's id; info: what the key is for): one that seals item records and the index, one that
/// names item entries. A new generation (a device removed) renames and reseals everything, so a
/// removed device's keys neither open nor name anything written afterwards.
public struct SpaceKey: Sendable {
    public static let size = 32

    public let generation: Int
    public let key: SecretBytes
    let sealingKey: SecretBytes
    let namingKey: SecretBytes

    public init(generation: Int, key: SecretBytes, spaceID: String) throws {
        guard (1...SpaceLimits.maxGeneration).contains(generation), key.count == Self.size else { throw CryptoError.invalidParameters("a space key is 32 bytes of a generation from 1") }
        self.generation = generation
        self.key = key
        let salt = Array(spaceID.utf8)
        sealingKey = try HKDF.sha256(key, salt: salt, info: Array("vault space records v1".utf8), count: AESGCM.keySize)
        namingKey = try HKDF.sha256(key, salt: salt, info: Array("vault space names v1".utf8), count: 32)
    }

    /// A new random key.
    public static func generate(generation: Int, spaceID: String) throws -> SpaceKey {
        let key = try SecureRandom.secretBytes(size)
        return try SpaceKey(generation: generation, key: key, spaceID: spaceID)
    }

    /// The entry name of the item `service` / `account`: HMAC-SHA256 under the naming key of the
    /// two names, each followed by a zero byte, in lower-case hex. The engine sees only this.
    public func entryName(service: String, account: String) throws -> String {
        let message = Array(service.utf8) + [0] + Array(account.utf8) + [0]
        return try HKDF.hmacSHA256(key: namingKey, message).lowercaseHex
    }
}
