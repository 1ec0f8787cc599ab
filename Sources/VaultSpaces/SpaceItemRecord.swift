import Foundation
import VaultCore

/// One item of a space as its sealed entry holds it: the item (names, label, comment, kind and
/// secret, base64) and how it came to be: `seq` counts the item's writes (the first is 1, each
/// next one more than the one it was based on, so an engine serving an older record is caught),
/// `writer` is the device that wrote it, `modified` its time (ms since 1970; the later edit wins
/// a conflict), `deleted` a tombstone (the secret then empty). JSON, keys sorted.
public struct SpaceItemRecord: Codable, Sendable, Equatable {
    public var service: String
    public var account: String
    public var label: String
    public var comment: String
    public var kind: String
    /// Base64 of the secret's bytes.
    public var secret: String
    public var seq: Int
    public var writer: String
    public var modified: Int64
    public var deleted: Bool

    public init(service: String, account: String, label: String = "", comment: String = "", kind: String = "secret",
                secret: SecretBytes, seq: Int, writer: String, modified: Int64, deleted: Bool = false) {
        self.service = service
        self.account = account
        self.label = label
        self.comment = comment
        self.kind = kind
        self.secret = secret.withUnsafeBytes { Data($0).base64EncodedString() }
        self.seq = seq
        self.writer = writer
        self.modified = modified
        self.deleted = deleted
    }

    public var secretBytes: SecretBytes? {
        Data(base64Encoded: secret).map { SecretBytes($0) }
    }

    /// The record's JSON, the intermediate copy wiped.
    func encoded() throws -> SecretBytes { try secretJSON() }

    static func decoding(_ plaintext: SecretBytes) throws -> SpaceItemRecord {
        guard let record = plaintext.withUnsafeBytes({ try? JSONDecoder().decode(SpaceItemRecord.self, from: Data($0)) }) else {
            throw SpaceError.tampered("a sealed record that is not an item's record")
        }
        guard record.seq > 0, record.seq <= SpaceLimits.maxSeq, record.secretBytes != nil, !record.service.isEmpty, !record.account.isEmpty else {
            throw SpaceError.tampered("a record with an impossible sequence number, secret or name")
        }
        return record
    }
}
