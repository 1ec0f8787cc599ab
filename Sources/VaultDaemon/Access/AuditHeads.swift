import Foundation
import VaultCore

/// The heads of the audit log's chains kept in the vault (the item `ItemKey.auditHeads`, kind
/// `access`), so that records cut off a chain's end, or the log rolled back to an older copy,
/// show as missing after vaultd restarts (`AuditChain`). vaultd writes its own head here when
/// the store locks (any way: a request, auto-lock, shutdown) and when the log rotates; the
/// newest `keep` heads are kept.
enum AuditHeads {
    static let keep = 16

    private struct Stored: Codable {
        var heads: [String: AuditChain.Head]
    }

    static func load(from store: any VaultStore) throws -> [String: AuditChain.Head] {
        do {
            let item = try store.get(.auditHeads)
            return (try? item.secret.withUnsafeBytes { try JSONDecoder().decode(Stored.self, from: Data($0)) })?.heads ?? [:]
        } catch VaultError.notFound {
            return [:]
        }
    }

    /// Records `head` for `chain` in `store` (written only when it moved on).
    static func save(_ head: AuditChain.Head, of chain: String, to store: any VaultStore) throws {
        var heads = try load(from: store)
        guard heads[chain] != head else { return }
        heads[chain] = head
        if heads.count > keep {
            for old in heads.sorted(by: { $0.value.time < $1.value.time }).prefix(heads.count - keep) { heads[old.key] = nil }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        _ = try store.set(.auditHeads, secret: SecretBytes(Array(try encoder.encode(Stored(heads: heads)))), changes: ItemChanges(label: "vault audit log heads", kind: .access))
    }
}
