#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto

/// Reading and writing items: each through the open vault (`EncryptedFileStore+OpenVault`).
extension EncryptedFileStore {
    /// The state lock is held only to find the sealed record; it is opened outside, so that
    /// concurrent `get`s decrypt side by side (the key stays alive while this holds it).
    public func get(_ key: ItemKey) throws -> Item {
        try get(key, looking: true)
    }

    func get(_ key: ItemKey, looking: Bool) throws -> Item {
        let (entry, vaultID, dataKey) = try withOpenVault(looking: looking) { vault, _ in (try vault.table.entry(key), vault.keyBlock.vaultID, vault.dataKey) }
        do {
            return Item(info: entry.info, secret: try entry.payload.openSecret(vaultID: vaultID, key: dataKey))
        } catch CryptoError.authenticationFailed {
            throw VaultError.tamperedVault(path: path, detail: "the secret of \(key) does not authenticate")
        }
    }

    public func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: true)
    }

    public func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: false)
    }

    public func delete(_ key: ItemKey) throws {
        try mutate { vault in
            ((), [.deletion(key, itemID: try vault.table.entry(key).payload.itemID)])
        }
    }

    public func list(service: String?) throws -> [ItemInfo] {
        try list(service: service, looking: true)
    }

    func list(service: String?, looking: Bool) throws -> [ItemInfo] {
        try withOpenVault(looking: looking) { vault, _ in vault.table.list(service: service) }
    }

    public func list(service: String?, after: ItemKey?, limit: Int) throws -> [ItemInfo] {
        try list(service: service, after: after, limit: limit, looking: true)
    }

    func list(service: String?, after: ItemKey?, limit: Int, looking: Bool) throws -> [ItemInfo] {
        try withOpenVault(looking: looking) { vault, _ in vault.table.list(service: service, after: after, limit: limit) }
    }

    func write(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges, mustBeNew: Bool) throws -> ItemInfo {
        try ItemTable<SealedRecord>.checkSecret(secret)
        try changes.validate(for: key)
        return try mutate { vault in
            let change = try Self.seal(key, secret: secret, changes: changes, mustBeNew: mustBeNew, now: Clock.nowMilliseconds(), vault)
            guard case .upsert(let info, _) = change else { preconditionFailure("a write seals an upsert") }
            return (info, [change])
        }
    }

    /// Adds every item in one write of the file (one lock, one compaction, one fsync): for filling
    /// large vaults in tests and benchmarks. All or nothing, on disk too (a compaction is one
    /// rename): an existing key, or one given twice, fails the whole call with `.duplicate`.
    public func add(_ items: [(key: ItemKey, secret: SecretBytes, changes: ItemChanges)]) throws {
        for item in items {
            try ItemTable<SealedRecord>.checkSecret(item.secret)
            try item.changes.validate(for: item.key)
        }
        try mutate { vault in
            let now = Clock.nowMilliseconds()
            var seen = Set<ItemKey>()
            let changes = try items.map { item in
                guard seen.insert(item.key).inserted else { throw VaultError.duplicate(item.key) }
                return try Self.seal(item.key, secret: item.secret, changes: item.changes, mustBeNew: true, now: now, vault)
            }
            return ((), changes)
        }
    }

    /// The upsert a write of `key` makes (the vault is not changed yet).
    static func seal(
        _ key: ItemKey, secret: SecretBytes, changes: ItemChanges, mustBeNew: Bool, now: Int64, _ vault: OpenVault
    ) throws -> OpenVault.Change {
        let itemID = try (vault.table[key]?.payload.itemID) ?? SecureRandom.bytes(VaultFileFormat.itemIDSize)
        let info = try vault.table.metadataForWrite(key, changes: changes, mustBeNew: mustBeNew, now: now)
        let record = try SealedRecord.seal(info: info, secret: secret, itemID: itemID, vaultID: vault.keyBlock.vaultID, key: vault.dataKey)
        return .upsert(info, record)
    }
}
