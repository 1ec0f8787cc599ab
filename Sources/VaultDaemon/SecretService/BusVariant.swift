import CGDBusShims
import VaultCore

/// A GVariant vaultd received (a call's parameters or a part of them), holding one reference.
/// Every accessor checks the type first: a value of another type reads as nil, never traps.
package final class BusVariant: @unchecked Sendable {
    // Immutable after init; GVariants are immutable and safe to read from any thread.
    let pointer: OpaquePointer

    /// Takes a new reference (sinking a floating one).
    package init(retaining pointer: OpaquePointer) {
        self.pointer = g_variant_ref_sink(pointer)
    }

    /// Takes over a reference the caller owned (transfer full).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { g_variant_unref(pointer) }

    package func isOf(_ type: String) -> Bool { vault_variant_is(pointer, type) != 0 }

    /// The number of children of a container; 0 for any other value (GLib aborts the process
    /// when asked for a string's children).
    package var childCount: Int { g_variant_is_container(pointer) != 0 ? Int(g_variant_n_children(pointer)) : 0 }

    /// The child at `index` of a container (tuple, array, variant, dict entry); nil past the end.
    package func child(_ index: Int) -> BusVariant? {
        guard index >= 0, index < childCount else { return nil }
        return BusVariant(taking: g_variant_get_child_value(pointer, gsize(index))!)
    }

    /// Bytes the value takes serialized (a string's with its terminating NUL): known without
    /// copying anything, so sizes are checked before a value is copied out.
    var size: Int { Int(g_variant_get_size(pointer)) }

    /// The longest `s` or `o` read by `string`: far more than any path, label, name or alias
    /// vaultd takes, so a longer one is refused without being copied.
    static let maxTextBytes = 4096

    /// `s` or `o` of at most `maxTextBytes`.
    package var string: String? {
        guard isOf("s") || isOf("o"), size <= Self.maxTextBytes + 1 else { return nil }
        return String(cString: g_variant_get_string(pointer, nil))
    }

    package var boolean: Bool? { isOf("b") ? g_variant_get_boolean(pointer) != 0 : nil }

    /// The value inside a `v`.
    package var unboxed: BusVariant? {
        guard isOf("v") else { return nil }
        return BusVariant(taking: g_variant_get_variant(pointer)!)
    }

    /// `ay` of at most `limit` bytes (`what` names it in the error), copied into memory that is
    /// wiped when released; the size is checked first.
    package func secretBytes(atMost limit: Int, _ what: String) throws(BusError) -> SecretBytes {
        guard isOf("ay") else { throw .invalidArgs("\(what) is bytes (ay)") }
        guard size <= limit else { throw .invalidArgs("\(what) is \(size) bytes; the limit is \(limit)") }
        var count: gsize = 0
        guard let data = g_variant_get_fixed_array(pointer, &count, 1) else { return SecretBytes.empty }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: data, count: Int(count)))
    }

    /// `ao` or `as` of at most `limit` elements, each at most `maxTextBytes`; the count is
    /// checked before anything is copied. nil for another type, or an element too long.
    package func strings(atMost limit: Int) throws(BusError) -> [String]? {
        guard isOf("ao") || isOf("as") else { return nil }
        guard childCount <= limit else { throw .limitsExceeded("\(childCount) objects in one call; the limit is \(limit)") }
        var result: [String] = []
        result.reserveCapacity(childCount)
        for index in 0..<childCount {
            guard let text = child(index)?.string else { throw .invalidArgs("an object path longer than \(Self.maxTextBytes) bytes") }
            result.append(text)
        }
        return result
    }

    /// `a{ss}` with names of at most `nameBytes` and values of at most `valueBytes` (each size
    /// checked before it is copied). Duplicate names (which GVariant allows) are refused: which
    /// one counts would be a guess.
    package func stringDictionary(nameBytes: Int, valueBytes: Int) throws(BusError) -> [String: String] {
        guard isOf("a{ss}") else { throw .invalidArgs("attributes are a{ss}") }
        var result: [String: String] = [:]
        for index in 0..<childCount {
            guard let entry = child(index), let nameValue = entry.child(0), let valueValue = entry.child(1) else { throw .invalidArgs("attributes are a{ss}") }
            guard nameValue.size <= nameBytes + 1 else { throw .invalidArgs("an attribute name is \(nameValue.size - 1) bytes; the limit is \(nameBytes)") }
            guard valueValue.size <= valueBytes + 1 else { throw .invalidArgs("an attribute value is \(valueValue.size - 1) bytes; the limit is \(valueBytes)") }
            guard let name = nameValue.string, let value = valueValue.string else { throw .invalidArgs("attributes are a{ss}") }
            guard result.updateValue(value, forKey: name) == nil else { throw .invalidArgs("an attribute name appears twice") }
        }
        return result
    }

    /// `a{sv}` of at most `limit` entries: the values, unboxed.
    package func variantDictionary(atMost limit: Int) -> [String: BusVariant]? {
        guard isOf("a{sv}"), childCount <= limit else { return nil }
        var result: [String: BusVariant] = [:]
        for index in 0..<childCount {
            guard let entry = child(index), let name = entry.child(0)?.string, let value = entry.child(1)?.unboxed else { return nil }
            result[name] = value
        }
        return result
    }
}
