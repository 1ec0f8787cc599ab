import Foundation
import VaultCore
import VaultCrypto

/// What an approver proves it knows: the approval secret the person chose, kept in the vault as
/// an scrypt hash under a random salt (the item `ItemKey.approvalSecret`, kind `access`, which no
/// request can address). A program of the user can read neither the secret nor its hash through
/// vaultd, so it cannot register as an approver and answer its own requests.
struct ApprovalSecret: Codable, Sendable, Equatable {
    var version = 1
    var log2N: UInt8
    var r: UInt32
    var p: UInt32
    var salt: String
    var verifier: String
    /// When it was set (RFC 3339), shown by `status`.
    var set: String

    static let saltBytes = 16
    static let minimumBytes = 8
    static let maximumBytes = 1024

    /// A verifier for `secret` under `parameters` and a fresh salt; refuses a secret a person
    /// could not be expected to keep to themselves (fewer than 8 bytes).
    static func make(_ secret: SecretBytes, parameters: Scrypt.Parameters) throws -> ApprovalSecret {
        guard (minimumBytes...maximumBytes).contains(secret.count) else {
            throw VaultError.invalidInput("an approval secret is \(minimumBytes) to \(maximumBytes) bytes long")
        }
        let salt = try SecureRandom.bytes(saltBytes)
        let hash = try Scrypt.deriveKey(passphrase: secret, salt: salt, parameters: parameters)
        return ApprovalSecret(
            log2N: parameters.log2N, r: parameters.r, p: parameters.p, salt: Data(salt).base64EncodedString(),
            verifier: Data(hash.unprotectedBytes).base64EncodedString(), set: Timestamp.rfc3339(milliseconds: Clock.nowMilliseconds()))
    }

    /// Whether `secret` is the approval secret (compared in constant time).
    func matches(_ secret: SecretBytes) throws -> Bool {
        guard let salt = Data(base64Encoded: salt), let expected = Data(base64Encoded: verifier) else {
            throw VaultError.internal("the approval secret's record in the vault is damaged; set a new one with 'vaultctl approve --new-secret'")
        }
        let hash = try Scrypt.deriveKey(
            passphrase: secret, salt: Array(salt), parameters: Scrypt.Parameters(log2N: log2N, r: r, p: p), length: expected.count)
        return hash == SecretBytes(Array(expected))
    }

    // MARK: Storage

    /// The verifier stored in `store`, or nil when none was set.
    static func load(from store: any VaultStore) throws -> ApprovalSecret? {
        let item: Item
        do {
            item = try store.get(.approvalSecret)
        } catch VaultError.notFound {
            return nil
        }
        guard let record = try? item.secret.withUnsafeBytes({ try JSONDecoder().decode(ApprovalSecret.self, from: Data($0)) }) else {
            throw VaultError.internal("the approval secret's record in the vault cannot be read; set a new one with 'vaultctl approve --new-secret'")
        }
        return record
    }

    func save(to store: any VaultStore) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        _ = try store.set(.approvalSecret, secret: SecretBytes(Array(try encoder.encode(self))), changes: ItemChanges(label: "vault approval secret", kind: .access))
    }
}
