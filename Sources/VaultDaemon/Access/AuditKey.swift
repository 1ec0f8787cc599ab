import VaultCore
import VaultCrypto

/// The audit log's key: 32 random bytes kept as the item `ItemKey.auditKey` (kind `access`), so it
/// is sealed like every item (the file store's data key; the Secret Service's collection), is
/// there only while the vault is unlocked, and moves with the items on `migrate`.
enum AuditKey {
    static func get(in store: any VaultStore, creating: Bool) throws -> SecretBytes? {
        do {
            let key = try store.get(.auditKey).secret
            guard key.count == AESGCM.keySize else { throw VaultError.internal("the audit key stored in the vault is damaged") }
            return key
        } catch VaultError.notFound {
            guard creating else { return nil }
            let key = try SecureRandom.secretBytes(AESGCM.keySize)
            _ = try store.set(.auditKey, secret: key, changes: ItemChanges(label: "vault audit log key", kind: .access))
            return key
        }
    }
}
