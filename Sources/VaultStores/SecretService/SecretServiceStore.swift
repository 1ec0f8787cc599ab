import CLibSecret
import Synchronization
import VaultCore

/// Items in the Secret Service (GNOME Keyring, KeePassXC, KWallet's bridge) through libsecret.
///
/// Items live in the default collection with the attributes `service` and `username` (the
/// account), so `secret-tool`, Python `keyring` and go-keyring see the same items. vault's kind
/// and comment ride in `vault-kind` and `vault-comment`. Every call is bounded by `timeout`.
/// Calls block on D-Bus: run them off the Swift cooperative pool (vaultd's store queue does).
public final class SecretServiceStore: VaultStore {
    public let timeout: Double
    /// Serializes calls: libsecret's sync API is used from one thread at a time.
    private let gate = Mutex(())

    public init(timeout: Double = 5) {
        self.timeout = timeout
    }

    public var kind: StoreKind { .secretService }

    public func status() -> StoreStatus {
        let locked = (try? withService { service in try self.defaultCollection(service).locked }) ?? true
        let count = locked ? nil : (try? list(service: nil).count)
        return StoreStatus(kind: kind, isLocked: locked, location: "Secret Service, default collection", itemCount: count)
    }

    // MARK: Items

    public func get(_ key: ItemKey) throws -> Item {
        try withService { service in
            let items = try self.search(service, key: key, loadSecrets: true)
            defer { vault_object_list_free(items.list) }
            guard let item = items.first else { throw VaultError.notFound(key) }
            if secret_item_get_locked(item) != 0 { throw self.lockedError }
            guard let value = secret_item_get_secret(item) else {
                throw VaultError.locked("the Secret Service returned no secret for \(key); its collection may be locked: run 'vaultctl unlock'")
            }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            var length = 0
            let bytes = secret_value_get(value, &length)
            let secret = SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length))
            return Item(info: self.info(of: item, key: key), secret: secret)
        }
    }

    public func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: true)
    }

    public func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: false)
    }

    public func delete(_ key: ItemKey) throws {
        try withService { service in
            let items = try self.search(service, key: key, loadSecrets: false)
            defer { vault_object_list_free(items.list) }
            guard !items.all.isEmpty else { throw VaultError.notFound(key) }
            // Every item with this key: duplicates left by other tools go too.
            for item in items.all {
                _ = try BoundedCall.run(timeout: self.timeout, "a delete") { cancellable, error in
                    secret_item_delete_sync(item, cancellable, error)
                }
            }
        }
    }

    public func list(service filter: String?) throws -> [ItemInfo] {
        try withService { service in
            let list: UnsafeMutablePointer<GList>?
            if let filter {
                let attributes = vault_attributes_new()!
                defer { g_hash_table_unref(attributes) }
                vault_attributes_set(attributes, "service", filter)
                list = try BoundedCall.run(timeout: self.timeout, "a search") { cancellable, error in
                    secret_service_search_sync(service, vault_secret_schema(), attributes, SECRET_SEARCH_ALL, cancellable, error)
                }
            } else {
                // A search with no attributes matches nothing: walk the default collection instead.
                let collection = try self.defaultCollection(service, loadItems: true)
                defer { vault_object_unref(collection.pointer) }
                if collection.locked { throw self.lockedError }
                list = secret_collection_get_items(collection.pointer)
            }
            defer { vault_object_list_free(list) }
            var seen = Set<ItemKey>()
            var result: [ItemInfo] = []
            for item in Self.items(in: list) {
                // Only items addressed the way vault addresses them; the rest of the keyring is not ours to show.
                guard let key = self.key(of: item), seen.insert(key).inserted else { continue }
                result.append(self.info(of: item, key: key))
            }
            return result.sorted { $0.key < $1.key }
        }
    }

    /// Checks that the service answers and has a default collection; throws a `VaultError`
    /// explaining what is missing otherwise.
    public func probe() throws {
        try withService { service in
            let collection = try self.defaultCollection(service)
            vault_object_unref(collection.pointer)
        }
    }

    // MARK: Locking

    /// Locks the default collection (the Secret Service's own lock: other applications see it too).
    public func lock() throws {
        try withService { service in
            let collection = try self.defaultCollection(service)
            defer { vault_object_unref(collection.pointer) }
            let list = g_list_append(nil, collection.pointer)
            defer { g_list_free(list) }
            _ = try BoundedCall.run(timeout: self.timeout, "a lock request") { cancellable, error in
                secret_service_lock_sync(service, list, cancellable, nil, error)
            }
        }
    }

    /// Asks the Secret Service to unlock the default collection. It may need to show a prompt;
    /// where nobody can answer one, this fails within the timeout and says so.
    public func unlock(passphrase: SecretBytes?) throws {
        try withService { service in
            let collection = try self.defaultCollection(service)
            defer { vault_object_unref(collection.pointer) }
            guard collection.locked else { return }
            let list = g_list_append(nil, collection.pointer)
            defer { g_list_free(list) }
            var unlocked: UnsafeMutablePointer<GList>?
            do {
                _ = try BoundedCall.run(timeout: self.timeout, "the unlock prompt") { cancellable, error in
                    secret_service_unlock_sync(service, list, cancellable, &unlocked, error)
                }
            } catch let error as VaultError {
                throw VaultError.locked("the Secret Service wanted to show an unlock prompt and nobody answered it in time (no display?); unlock your keyring from the desktop, or use the file store (VAULT_BACKEND=file). (\(error))")
            }
            let count = unlocked.map { g_list_length($0) } ?? 0
            if let unlocked { g_list_free_full(unlocked, vault_object_unref) }
            if count == 0 {
                throw VaultError.locked("the Secret Service did not unlock its default collection: its prompt was dismissed or could not be shown (no display?); unlock the keyring from your desktop session, or use the file store (VAULT_BACKEND=file)")
            }
        }
    }

    // MARK: Internals

    private var lockedError: VaultError {
        .locked("the Secret Service's default collection is locked: run 'vaultctl unlock' (it asks the Secret Service, which may show a prompt)")
    }

    private func write(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges, mustBeNew: Bool) throws -> ItemInfo {
        try ItemTable<SecretBytes>.checkSecret(secret)
        try changes.validate()
        return try withService { service in
            let items = try self.search(service, key: key, loadSecrets: false)
            defer { vault_object_list_free(items.list) }
            let contentType = secret.utf8String != nil ? "text/plain" : "application/octet-stream"
            // SecretBytes always has a valid base address, even when empty.
            let value = secret.withUnsafeBytes { bytes in
                secret_value_new(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count, contentType)!
            }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            if let existing = items.first {
                if mustBeNew { throw VaultError.duplicate(key) }
                if secret_item_get_locked(existing) != 0 { throw self.lockedError }
                try self.update(existing, key: key, value: value, changes: changes)
            } else {
                // Storing into a locked collection would start an unlock prompt: say "locked" instead.
                let collection = try self.defaultCollection(service)
                let locked = collection.locked
                vault_object_unref(collection.pointer)
                if locked { throw self.lockedError }
                try self.create(service, key: key, value: value, changes: changes)
            }
            // Read back: some providers report success and keep nothing.
            let stored = try self.search(service, key: key, loadSecrets: true)
            defer { vault_object_list_free(stored.list) }
            guard let item = stored.first, let readBack = secret_item_get_secret(item) else {
                throw VaultError.unavailable("the Secret Service accepted the write of \(key) but does not return it")
            }
            defer { secret_value_unref(UnsafeMutableRawPointer(readBack)) }
            var length = 0
            let bytes = secret_value_get(readBack, &length)
            guard SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length)) == secret else {
                throw VaultError.unavailable("the Secret Service returned a different secret for \(key) than was stored")
            }
            return self.info(of: item, key: key)
        }
    }

    private func create(_ service: UnsafeMutablePointer<SecretService>, key: ItemKey, value: OpaquePointer, changes: ItemChanges) throws {
        let attributes = vault_attributes_new()!
        defer { g_hash_table_unref(attributes) }
        vault_attributes_set(attributes, "service", key.service)
        vault_attributes_set(attributes, "username", key.account)
        vault_attributes_set(attributes, "vault-kind", (changes.kind ?? .secret).rawValue)
        if let comment = changes.comment, !comment.isEmpty { vault_attributes_set(attributes, "vault-comment", comment) }
        let label = changes.label ?? ItemChanges.defaultLabel(for: key)
        let ok = try BoundedCall.run(timeout: timeout, "a store") { cancellable, error in
            secret_service_store_sync(service, vault_secret_schema(), attributes, "default", label, value, cancellable, error)
        }
        if ok == 0 { throw VaultError.unavailable("the Secret Service refused to store \(key)") }
    }

    private func update(_ item: UnsafeMutablePointer<SecretItem>, key: ItemKey, value: OpaquePointer, changes: ItemChanges) throws {
        _ = try BoundedCall.run(timeout: timeout, "a secret update") { cancellable, error in
            secret_item_set_secret_sync(item, value, cancellable, error)
        }
        if let label = changes.label {
            _ = try BoundedCall.run(timeout: timeout, "a label update") { cancellable, error in
                secret_item_set_label_sync(item, label, cancellable, error)
            }
        }
        if changes.kind != nil || changes.comment != nil {
            // Keep every attribute the item has (other tools' too); schema nil so theirs are not rejected.
            guard let attributes = secret_item_get_attributes(item) else { return }
            defer { g_hash_table_unref(attributes) }
            if let kind = changes.kind { vault_attributes_set(attributes, "vault-kind", kind.rawValue) }
            if let comment = changes.comment { vault_attributes_set(attributes, "vault-comment", comment) }
            _ = try BoundedCall.run(timeout: timeout, "an attribute update") { cancellable, error in
                secret_item_set_attributes_sync(item, nil, attributes, cancellable, error)
            }
        }
    }

    private struct SearchResult {
        let list: UnsafeMutablePointer<GList>?
        var all: [UnsafeMutablePointer<SecretItem>] { SecretServiceStore.items(in: list) }
        var first: UnsafeMutablePointer<SecretItem>? { all.first }
    }

    private func search(_ service: UnsafeMutablePointer<SecretService>, key: ItemKey, loadSecrets: Bool) throws -> SearchResult {
        let attributes = vault_attributes_new()!
        defer { g_hash_table_unref(attributes) }
        vault_attributes_set(attributes, "service", key.service)
        vault_attributes_set(attributes, "username", key.account)
        let flags = SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue | (loadSecrets ? SECRET_SEARCH_LOAD_SECRETS.rawValue : 0))
        let list = try BoundedCall.run(timeout: timeout, "a search") { cancellable, error in
            secret_service_search_sync(service, vault_secret_schema(), attributes, flags, cancellable, error)
        }
        return SearchResult(list: list)
    }

    private static func items(in list: UnsafeMutablePointer<GList>?) -> [UnsafeMutablePointer<SecretItem>] {
        var result: [UnsafeMutablePointer<SecretItem>] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { result.append(data.assumingMemoryBound(to: SecretItem.self)) }
            node = current.pointee.next
        }
        return result
    }

    private func key(of item: UnsafeMutablePointer<SecretItem>) -> ItemKey? {
        guard let attributes = secret_item_get_attributes(item) else { return nil }
        defer { g_hash_table_unref(attributes) }
        guard let service = vault_attributes_get(attributes, "service"), let account = vault_attributes_get(attributes, "username") else { return nil }
        return try? ItemKey(service: String(cString: service), account: String(cString: account))
    }

    private func info(of item: UnsafeMutablePointer<SecretItem>, key: ItemKey) -> ItemInfo {
        var kind = ItemKind.secret, comment = ""
        if let attributes = secret_item_get_attributes(item) {
            defer { g_hash_table_unref(attributes) }
            if let raw = vault_attributes_get(attributes, "vault-kind") { kind = ItemKind(rawValue: String(cString: raw)) ?? .secret }
            if let raw = vault_attributes_get(attributes, "vault-comment") { comment = String(cString: raw) }
        }
        var label = ItemChanges.defaultLabel(for: key)
        if let raw = secret_item_get_label(item) {
            label = String(cString: raw)
            g_free(raw)
        }
        return ItemInfo(
            key: key, label: label, comment: comment, kind: kind,
            created: Int64(secret_item_get_created(item)) * 1000, modified: Int64(secret_item_get_modified(item)) * 1000)
    }

    private struct Collection {
        let pointer: UnsafeMutablePointer<SecretCollection>
        var locked: Bool { secret_collection_get_locked(pointer) != 0 }
    }

    private func defaultCollection(_ service: UnsafeMutablePointer<SecretService>, loadItems: Bool = false) throws -> Collection {
        let collection = try BoundedCall.run(timeout: timeout, "a collection look-up") { cancellable, error in
            secret_collection_for_alias_sync(service, "default", loadItems ? SECRET_COLLECTION_LOAD_ITEMS : SECRET_COLLECTION_NONE, cancellable, error)
        }
        guard let collection else {
            throw VaultError.unavailable("the Secret Service has no default collection; create one (e.g. a 'Login' keyring in Seahorse) or use the file store (VAULT_BACKEND=file)")
        }
        return Collection(pointer: collection)
    }

    /// Connects (or reuses libsecret's shared connection) and runs `body`, turning D-Bus failures
    /// into vault errors. After a failure the connection is dropped, so a restarted provider is
    /// picked up by the next call.
    private func withService<R>(_ body: (UnsafeMutablePointer<SecretService>) throws -> R) throws -> R {
        try gate.withLock { _ in
            do {
                let service = try BoundedCall.run(timeout: timeout, "the connection") { cancellable, error in
                    secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, cancellable, error)
                }
                guard let service else { throw VaultError.unavailable("libsecret returned no Secret Service") }
                defer { g_object_unref(service) }
                return try body(service)
            } catch let error as SecretServiceError {
                secret_service_disconnect()
                if error.isLocked { throw lockedError }
                if error.isServiceMissing {
                    throw VaultError.unavailable("no Secret Service on the session bus (\(error.message)); start one (gnome-keyring, KeePassXC) or use the file store (VAULT_BACKEND=file)")
                }
                throw VaultError.unavailable("the Secret Service failed: \(error.message)")
            } catch let error as VaultError {
                if case .unavailable = error { secret_service_disconnect() }
                throw error
            }
        }
    }
}
