import CLibSecret
import VaultCore

/// libsecret's shared connection to the Secret Service (SecretService*), with a session open for
/// transferring secrets. Owns one reference and drops it on deinit. Every call through it, and
/// through the collections and items it returns, is bounded by `timeout`.
final class SecretServiceConnection {
    private let pointer: UnsafeMutablePointer<SecretService>
    private let timeout: Double

    /// Connects, or reuses the connection libsecret keeps until `disconnect()`.
    init(timeout: Double) throws {
        let service = try BoundedCall.run(timeout: timeout, "the connection") { cancellable, error in
            secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, cancellable, error)
        }
        guard let service else { throw VaultError.unavailable("libsecret returned no Secret Service") }
        pointer = service
        self.timeout = timeout
    }

    deinit { g_object_unref(pointer) }

    /// Drops libsecret's shared connection, so the next `init` connects afresh (for instance to a
    /// provider that was restarted).
    static func disconnect() {
        secret_service_disconnect()
    }

    /// The collection `alias` names ("default"), with its items loaded when `loadItems`; nil when
    /// the alias names no collection.
    func collection(alias: String, loadItems: Bool) throws -> LibSecretCollection? {
        let collection = try BoundedCall.run(timeout: timeout, "a collection look-up") { cancellable, error in
            secret_collection_for_alias_sync(pointer, alias, loadItems ? SECRET_COLLECTION_LOAD_ITEMS : SECRET_COLLECTION_NONE, cancellable, error)
        }
        return collection.map { LibSecretCollection(taking: $0, timeout: timeout) }
    }

    /// Every item, locked or not, in any collection, whose attributes include all of
    /// `attributes`, with their secrets when `loadSecrets` (none for locked items). With the
    /// schema nil, attributes of any name are searched and the schema's name is not matched.
    func search(_ attributes: [String: String], schema: UnsafePointer<SecretSchema>? = vault_secret_schema(), loadSecrets: Bool) throws -> [LibSecretItem] {
        let table = AttributeTable(attributes)
        let flags = SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue | (loadSecrets ? SECRET_SEARCH_LOAD_SECRETS.rawValue : 0))
        let list = try BoundedCall.run(timeout: timeout, "a search") { cancellable, error in
            secret_service_search_sync(pointer, schema, table.pointer, flags, cancellable, error)
        }
        return ObjectList(taking: list).items(timeout: timeout)
    }

    /// Stores a new item in the collection `alias` names, or replaces the secret and label of the
    /// item there with exactly these attributes. False when the service reports failure without
    /// an error. With a `schema`, libsecret checks the attributes against it and the item's
    /// `xdg:schema` is its name; without one (nil), the attributes are stored exactly as given.
    func store(_ attributes: [String: String], schema: UnsafePointer<SecretSchema>?, alias: String, label: String, secret: SecretBytes) throws -> Bool {
        let table = AttributeTable(attributes)
        let value = LibSecretValue(secret)
        let stored = try BoundedCall.run(timeout: timeout, "a store") { cancellable, error in
            secret_service_store_sync(pointer, schema, table.pointer, alias, label, value.pointer, cancellable, error)
        }
        return stored != 0
    }

    func lock(_ collection: LibSecretCollection) throws {
        let list = ObjectList(referencing: [UnsafeMutableRawPointer(collection.pointer)])
        _ = try BoundedCall.run(timeout: timeout, "a lock request") { cancellable, error in
            secret_service_lock_sync(pointer, list.pointer, cancellable, nil, error)
        }
    }

    /// Asks the service to unlock `collection`, which may show a prompt. Returns how many objects
    /// it unlocked: 0 when the prompt was dismissed or could not be shown.
    func unlock(_ collection: LibSecretCollection) throws -> Int {
        let list = ObjectList(referencing: [UnsafeMutableRawPointer(collection.pointer)])
        var unlocked: UnsafeMutablePointer<GList>?
        _ = try BoundedCall.run(timeout: timeout, "the unlock prompt") { cancellable, error in
            secret_service_unlock_sync(pointer, list.pointer, cancellable, &unlocked, error)
        }
        return ObjectList(taking: unlocked).count
    }
}
