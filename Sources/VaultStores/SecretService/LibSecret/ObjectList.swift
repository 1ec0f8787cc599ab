import CLibSecret

/// A GList of GObject references (items, collections), as libsecret takes and returns lists.
/// Owns the list and one reference to each element; frees both on deinit.
final class ObjectList {
    let pointer: UnsafeMutablePointer<GList>?

    /// Takes over a list libsecret returned with transfer full (the list and its references).
    init(taking pointer: UnsafeMutablePointer<GList>?) {
        self.pointer = pointer
    }

    /// A new list of `objects`, taking a reference to each.
    init(referencing objects: [UnsafeMutableRawPointer]) {
        var list: UnsafeMutablePointer<GList>?
        for object in objects.reversed() { list = g_list_prepend(list, g_object_ref(object)) }
        pointer = list
    }

    deinit { vault_object_list_free(pointer) }

    var count: Int { Int(g_list_length(pointer)) }

    /// The elements as SecretItems, each wrapper taking its own reference, so they outlive the list.
    func items(timeout: Double) -> [LibSecretItem] {
        var result: [LibSecretItem] = []
        var node = pointer
        while let current = node {
            if let data = current.pointee.data {
                result.append(LibSecretItem(referencing: data.assumingMemoryBound(to: SecretItem.self), timeout: timeout))
            }
            node = current.pointee.next
        }
        return result
    }
}
