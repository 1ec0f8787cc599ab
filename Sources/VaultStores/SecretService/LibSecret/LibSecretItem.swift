import CLibSecret
import VaultCore

/// One Secret Service item (SecretItem*). Owns one reference and drops it on deinit. The
/// properties read libsecret's cached copy without a D-Bus call; the methods are D-Bus calls,
/// each bounded by `timeout`.
final class LibSecretItem {
    private let pointer: UnsafeMutablePointer<SecretItem>
    private let timeout: Double

    /// Takes a new reference to `pointer`.
    init(referencing pointer: UnsafeMutablePointer<SecretItem>, timeout: Double) {
        g_object_ref(pointer)
        self.pointer = pointer
        self.timeout = timeout
    }

    deinit { g_object_unref(pointer) }

    /// Every attribute, vault's and other tools'; nil when libsecret has none for the item.
    var attributes: [String: String]? {
        secret_item_get_attributes(pointer).map { AttributeTable(taking: $0).dictionary }
    }

    var label: String? {
        guard let label = secret_item_get_label(pointer) else { return nil }
        defer { g_free(label) }
        return String(cString: label)
    }

    /// Seconds since 1970.
    var created: Int64 { Int64(secret_item_get_created(pointer)) }
    var modified: Int64 { Int64(secret_item_get_modified(pointer)) }

    var isLocked: Bool { secret_item_get_locked(pointer) != 0 }

    /// The item's D-Bus object path; providers number items in the order they create them
    /// (gnome-keyring: .../collection/login/7), which breaks ties between equal timestamps.
    var objectPath: String {
        g_dbus_proxy_get_object_path(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GDBusProxy.self)).map { String(cString: $0) } ?? ""
    }

    /// The secret loaded with the item (a search with `loadSecrets`); nil when none was loaded,
    /// as for a locked item.
    var secret: SecretBytes? {
        secret_item_get_secret(pointer).map { LibSecretValue(taking: $0).bytes }
    }

    func setSecret(_ secret: SecretBytes) throws {
        let value = LibSecretValue(secret)
        _ = try BoundedCall.run(timeout: timeout, "a secret update") { cancellable, error in
            secret_item_set_secret_sync(pointer, value.pointer, cancellable, error)
        }
    }

    func setLabel(_ label: String) throws {
        _ = try BoundedCall.run(timeout: timeout, "a label update") { cancellable, error in
            secret_item_set_label_sync(pointer, label, cancellable, error)
        }
    }

    /// Replaces all of the item's attributes with `attributes`. No schema is passed, so libsecret
    /// does not reject attributes that are not in vault's.
    func setAttributes(_ attributes: [String: String]) throws {
        let table = AttributeTable(attributes)
        _ = try BoundedCall.run(timeout: timeout, "an attribute update") { cancellable, error in
            secret_item_set_attributes_sync(pointer, nil, table.pointer, cancellable, error)
        }
    }

    func delete() throws {
        _ = try BoundedCall.run(timeout: timeout, "a delete") { cancellable, error in
            secret_item_delete_sync(pointer, cancellable, error)
        }
    }
}
