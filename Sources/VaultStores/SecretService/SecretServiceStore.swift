import Synchronization
import VaultCore
import VaultSystem

/// Items in the Secret Service (GNOME Keyring, KeePassXC, KWallet's bridge) through libsecret.
///
/// Items live in the default collection with the attributes `service` and `username` (the
/// account), so `secret-tool`, Python `keyring` and go-keyring see the same items; how items other
/// tools wrote map to keys (duplicates, unaddressable items) is in `SecretServiceStore+Matching`.
/// vault's kind and comment ride in `vault-kind` and `vault-comment`. Every call is bounded by `timeout`.
/// Calls block on D-Bus: run them off the Swift cooperative pool (vaultd calls from its connection threads).
/// libsecret itself sits behind the owning wrappers in LibSecret/.
public final class SecretServiceStore: VaultStore {
    public let timeout: Double
    /// Serializes calls: libsecret's sync API is used from one thread at a time (so concurrent
    /// reads are safe, and take turns).
    private let gate = AdaptiveLock()

    /// Runs one request of vaultd's doors: once one of its calls to the provider times out, the
    /// rest fail at once (`BoundedCall.request`), so the request fails within one timeout.
    public static func oneRequest<R>(_ body: () throws -> R) rethrows -> R { try BoundedCall.request(body) }

    public init(timeout: Double = 5) {
        self.timeout = timeout
    }

    public var kind: StoreKind { .secretService }

    /// One per user, as the default collection is: in vault's data directory.
    public var refreshLockPath: String? {
        (try? VaultFileLocation.dataDirectory(environment: ProcessEnvironment.current)).map { $0 + "/secret-service.refresh.lock" }
    }

    public func status() -> StoreStatus {
        let location = "Secret Service, default collection"
        let census = try? withService { connection in try self.census(connection, service: nil) }
        guard let census else {
            let locked = (try? withService { connection in try self.defaultCollection(connection).isLocked }) ?? true
            return StoreStatus(kind: kind, isLocked: locked, location: location, itemCount: nil)
        }
        return StoreStatus(kind: kind, isLocked: false, location: location, itemCount: census.itemCount,
                           unaddressableCount: census.unaddressable.count, duplicateCount: census.duplicateCount)
    }

    // MARK: Items

    public func get(_ key: ItemKey) throws -> Item {
        try withService { connection in
            // The newest of duplicates: what the tool that wrote last stored.
            let matches = try self.items(connection, key: key, loadSecrets: true)
            guard let item = matches.first else { throw VaultError.notFound(key) }
            if item.isLocked { throw self.lockedError }
            guard let secret = item.secret else {
                throw VaultError.locked("the Secret Service returned no secret for \(key); its collection may be locked: run 'vaultctl unlock'")
            }
            return Item(info: self.info(of: item, key: key, duplicates: matches.count - 1), secret: secret)
        }
    }

    public func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: true)
    }

    public func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: false)
    }

    public func delete(_ key: ItemKey) throws {
        try withService { connection in
            let items = try self.items(connection, key: key, loadSecrets: false)
            guard !items.isEmpty else { throw VaultError.notFound(key) }
            // Every item with this key: duplicates left by other tools go too.
            for item in items { try item.delete() }
        }
    }

    public func list(service filter: String?) throws -> [ItemInfo] {
        try withService { connection in
            // One entry per key, with the newest item's metadata and the count of the others.
            try self.census(connection, service: filter).keys
                .map { key, items in self.info(of: items[0], key: key, duplicates: items.count - 1) }
                .sorted { $0.key < $1.key }
        }
    }

    public func unaddressable(service filter: String?) throws -> [UnaddressableItem] {
        try withService { connection in try self.census(connection, service: filter).unaddressable }
    }

    /// Checks that the service answers and has a default collection; throws a `VaultError`
    /// explaining what is missing otherwise.
    public func probe() throws {
        try withService { connection in _ = try self.defaultCollection(connection) }
    }

    // MARK: Locking

    /// Locks the default collection (the Secret Service's own lock: other applications see it too).
    public func lock() throws {
        try withService { connection in try connection.lock(try self.defaultCollection(connection)) }
    }

    /// Asks the Secret Service to unlock the default collection. It may need to show a prompt;
    /// where nobody can answer one, this fails within the timeout and says so.
    public func unlock(passphrase: SecretBytes?) throws {
        try withService { connection in
            let collection = try self.defaultCollection(connection)
            guard collection.isLocked else { return }
            let unlocked: Int
            do {
                unlocked = try connection.unlock(collection)
            } catch let error as VaultError {
                throw VaultError.locked("the Secret Service wanted to show an unlock prompt and nobody answered it in time (no display?); unlock your keyring from the desktop, or use the file store (VAULT_BACKEND=file). (\(error))")
            }
            if unlocked == 0 {
                throw VaultError.locked("the Secret Service did not unlock its default collection: its prompt was dismissed or could not be shown (no display?); unlock the keyring from your desktop session, or use the file store (VAULT_BACKEND=file)")
            }
        }
    }

    // MARK: Internals

    /// The attributes vault reads and writes (vault_secret_schema in CLibSecret).
    enum Attribute {
        static let service = "service"
        static let account = "username"
        static let kind = "vault-kind"
        static let comment = "vault-comment"
        /// libsecret's record of the schema an item was stored with; libsecret clients search by it.
        static let schema = "xdg:schema"
        /// The schema name vault's own items get (vault_secret_schema's).
        static let genericSchema = "org.freedesktop.Secret.Generic"
        /// vault's own, never among an item's other attributes.
        static let own: Set<String> = [service, account, kind, comment]
    }

    /// An item's other attributes as `ItemInfo.attributes` holds them: every attribute but vault's
    /// own four. `xdg:schema` is one of them, kept like any other, so that an item migrated to the
    /// file store and back (or served by vaultd's Secret Service front door) is still found by the
    /// libsecret clients that search with their schema. Attributes vault cannot hold
    /// (`ItemAttributes`: control characters, over the size limits, past the 64th by name) are
    /// left out of the copy; they stay on the item itself.
    static func otherAttributes(_ all: [String: String]) -> [String: String] {
        var others: [String: String] = [:]
        for (name, value) in all.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        where !Attribute.own.contains(name) && ItemAttributes.problem(with: [name: value]) == nil {
            guard others.count < ItemLimits.maxAttributes else { break }
            others[name] = value
        }
        return others
    }

    var lockedError: VaultError {
        .locked("the Secret Service's default collection is locked: run 'vaultctl unlock' (it asks the Secret Service, which may show a prompt)")
    }

    private func write(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges, mustBeNew: Bool) throws -> ItemInfo {
        try ItemTable<SecretBytes>.checkSecret(secret)
        try changes.validate(for: key)
        return try withService { connection in
            let existing = try self.items(connection, key: key, loadSecrets: false)
            if !existing.isEmpty {
                if mustBeNew { throw VaultError.duplicate(key) }
                if existing.contains(where: \.isLocked) { throw self.lockedError }
                // Every duplicate, so every tool reads the new secret whichever item it finds.
                for item in existing { try self.update(item, secret: secret, changes: changes) }
            } else {
                // Storing into a locked collection would start an unlock prompt: say "locked" instead.
                if try self.defaultCollection(connection).isLocked { throw self.lockedError }
                try self.create(connection, key: key, secret: secret, changes: changes)
            }
            // Read back: some providers report success and keep nothing.
            let written = try self.items(connection, key: key, loadSecrets: true)
            guard let item = written.first, written.allSatisfy({ $0.secret != nil }) else {
                throw VaultError.unavailable("the Secret Service accepted the write of \(key) but does not return it")
            }
            guard written.allSatisfy({ $0.secret == secret }) else {
                throw VaultError.unavailable("the Secret Service returned a different secret for \(key) than was stored")
            }
            return self.info(of: item, key: key, duplicates: written.count - 1)
        }
    }

    private func create(_ connection: SecretServiceConnection, key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws {
        // The other attributes as given (with a schema name: vault's generic one unless they name
        // one), then vault's own. No schema for libsecret to check them against: it would refuse
        // any attribute outside it, and add its own name over the one given.
        var attributes = changes.attributes ?? [:]
        if attributes[Attribute.schema] == nil { attributes[Attribute.schema] = Attribute.genericSchema }
        attributes[Attribute.service] = key.service
        attributes[Attribute.account] = key.account
        attributes[Attribute.kind] = (changes.kind ?? .secret).rawValue
        if let comment = changes.comment, !comment.isEmpty { attributes[Attribute.comment] = comment }
        let label = changes.label ?? ItemChanges.defaultLabel(for: key)
        if try !connection.store(attributes, schema: nil, alias: "default", label: label, secret: secret) {
            throw VaultError.unavailable("the Secret Service refused to store \(key)")
        }
    }

    private func update(_ item: LibSecretItem, secret: SecretBytes, changes: ItemChanges) throws {
        try item.setSecret(secret)
        if let label = changes.label { try item.setLabel(label) }
        if changes.kind != nil || changes.comment != nil || changes.attributes != nil {
            // Keep every attribute the item has (other tools' too), unless new other attributes
            // replace them; vault's own are kept either way.
            guard var attributes = item.attributes else { return }
            if let others = changes.attributes {
                attributes = others.merging(attributes.filter { Attribute.own.contains($0.key) }) { $1 }
            }
            if let kind = changes.kind { attributes[Attribute.kind] = kind.rawValue }
            if let comment = changes.comment { attributes[Attribute.comment] = comment }
            try item.setAttributes(attributes)
        }
    }

    /// Every item addressed by `key`, in any collection, locked or not, whatever other attributes
    /// it has; newest first.
    private func items(_ connection: SecretServiceConnection, key: ItemKey, loadSecrets: Bool) throws -> [LibSecretItem] {
        try connection.search([Attribute.service: key.service, Attribute.account: key.account], loadSecrets: loadSecrets)
            .sorted(by: Self.newestFirst)
    }

    /// The items of vault's part of the keychain: `service`'s (in any collection) when given,
    /// otherwise those of the default collection.
    private func census(_ connection: SecretServiceConnection, service filter: String?) throws -> Census {
        if let filter {
            return Self.census(of: try connection.search([Attribute.service: filter], loadSecrets: false))
        }
        // A search with no attributes matches nothing: walk the default collection instead.
        let collection = try defaultCollection(connection, loadItems: true)
        if collection.isLocked { throw lockedError }
        return Self.census(of: collection.items)
    }

    private func info(of item: LibSecretItem, key: ItemKey, duplicates: Int) -> ItemInfo {
        let attributes = item.attributes ?? [:]
        return ItemInfo(
            key: key, label: item.label ?? ItemChanges.defaultLabel(for: key), comment: attributes[Attribute.comment] ?? "",
            kind: attributes[Attribute.kind].flatMap(ItemKind.init(rawValue:)) ?? .secret,
            created: item.created * 1000, modified: item.modified * 1000, duplicates: duplicates,
            attributes: Self.otherAttributes(attributes))
    }

    func defaultCollection(_ connection: SecretServiceConnection, loadItems: Bool = false) throws -> LibSecretCollection {
        guard let collection = try connection.collection(alias: "default", loadItems: loadItems) else {
            throw VaultError.unavailable("the Secret Service has no default collection; create one (e.g. a 'Login' keyring in Seahorse) or use the file store (VAULT_BACKEND=file)")
        }
        return collection
    }

    /// Connects (or reuses libsecret's shared connection) and runs `body`, turning D-Bus failures
    /// into vault errors. After a failure the connection is dropped, so a restarted provider is
    /// picked up by the next call.
    func withService<R>(_ body: (SecretServiceConnection) throws -> R) throws -> R {
        let timeoutsBefore = BoundedCall.timeoutCount
        return try gate.withLock {
            // A call that timed out while this one waited its turn: the provider stopped
            // answering, and this call would only wait as long again.
            if BoundedCall.timeoutCount != timeoutsBefore {
                let hung = VaultError.unavailable("the Secret Service did not answer another of vaultd's calls within \(timeout.secondsText) s; vaultd keeps serving (set VAULT_SECRET_SERVICE_TIMEOUT to wait longer)")
                BoundedCall.failRequest(hung)
                throw hung
            }
            do {
                return try body(try SecretServiceConnection(timeout: timeout))
            } catch let error as SecretServiceError {
                SecretServiceConnection.disconnect()
                throw vaultError(error)
            } catch let error as VaultError {
                if case .unavailable = error { SecretServiceConnection.disconnect() }
                throw error
            }
        }
    }

    private func vaultError(_ error: SecretServiceError) -> VaultError {
        switch error.kind {
        case .locked:
            lockedError
        case .serviceMissing:
            .unavailable("no Secret Service on the session bus (\(error.message)); start one (gnome-keyring, KeePassXC) or use the file store (VAULT_BACKEND=file)")
        case .busUnreachable:
            .unavailable("no Secret Service: the session bus cannot be reached (\(error.message)); check DBUS_SESSION_BUS_ADDRESS, or use the file store (VAULT_BACKEND=file)")
        case .noSuchObject:
            .unavailable("the Secret Service failed: \(error.message) (an item or collection went away during the call, perhaps deleted by another program; try again)")
        case .cancelled, .other:
            .unavailable("the Secret Service failed: \(error.message)")
        }
    }
}
