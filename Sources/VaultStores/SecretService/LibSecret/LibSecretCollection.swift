import CLibSecret

/// One Secret Service collection (SecretCollection*). Owns one reference and drops it on deinit.
final class LibSecretCollection {
    let pointer: UnsafeMutablePointer<SecretCollection>
    private let timeout: Double

    /// Takes over a collection libsecret returned with transfer full.
    init(taking pointer: UnsafeMutablePointer<SecretCollection>, timeout: Double) {
        self.pointer = pointer
        self.timeout = timeout
    }

    deinit { g_object_unref(pointer) }

    var isLocked: Bool { secret_collection_get_locked(pointer) != 0 }

    /// The items libsecret loaded with the collection (`loadItems`); empty when it loaded none.
    var items: [LibSecretItem] {
        ObjectList(taking: secret_collection_get_items(pointer)).items(timeout: timeout)
    }
}
