import CLibSecret

/// A GHashTable of string attributes (name to value), the form libsecret takes and returns them
/// in. Owns one reference to the table and drops it on deinit.
final class AttributeTable {
    let pointer: OpaquePointer

    /// A new table holding copies of `attributes`.
    init(_ attributes: [String: String]) {
        pointer = vault_attributes_new()
        for (name, value) in attributes { vault_attributes_set(pointer, name, value) }
    }

    /// Takes over a table libsecret returned with transfer full.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { g_hash_table_unref(pointer) }

    var dictionary: [String: String] {
        var result: [String: String] = [:]
        var iterator = GHashTableIter()
        g_hash_table_iter_init(&iterator, pointer)
        var name: gpointer?, value: gpointer?
        while g_hash_table_iter_next(&iterator, &name, &value) != 0 {
            guard let name, let value else { continue }
            result[String(cString: name.assumingMemoryBound(to: CChar.self))] = String(cString: value.assumingMemoryBound(to: CChar.self))
        }
        return result
    }
}
