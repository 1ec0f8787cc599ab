import CGDBusShims
import VaultCore

/// A GVariant vaultd received (a call's parameters or a part of them), holding one reference.
/// Every accessor checks the type first: a value of another type reads as nil, never traps.
final class BusVariant: @unchecked Sendable {
    // Immutable after init; GVariants are immutable and safe to read from any thread.
    let pointer: OpaquePointer

    /// Takes a new reference (sinking a floating one).
    init(retaining pointer: OpaquePointer) {
        self.pointer = g_variant_ref_sink(pointer)
    }

    /// Takes over a reference the caller owned (transfer full).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { g_variant_unref(pointer) }

    func isOf(_ type: String) -> Bool { vault_variant_is(pointer, type) != 0 }

    var childCount: Int { Int(g_variant_n_children(pointer)) }

    /// The child at `index` of a container (tuple, array, variant, dict entry); nil past the end.
    func child(_ index: Int) -> BusVariant? {
        guard g_variant_is_container(pointer) != 0, index >= 0, index < childCount else { return nil }
        return BusVariant(taking: g_variant_get_child_value(pointer, gsize(index))!)
    }

    /// `s` or `o`.
    var string: String? {
        guard isOf("s") || isOf("o") else { return nil }
        return String(cString: g_variant_get_string(pointer, nil))
    }

    var boolean: Bool? { isOf("b") ? g_variant_get_boolean(pointer) != 0 : nil }

    /// The value inside a `v`.
    var unboxed: BusVariant? {
        guard isOf("v") else { return nil }
        return BusVariant(taking: g_variant_get_variant(pointer)!)
    }

    /// `ay`, copied into memory that is wiped when released.
    var secretBytes: SecretBytes? {
        guard isOf("ay") else { return nil }
        var count: gsize = 0
        guard let data = g_variant_get_fixed_array(pointer, &count, 1) else { return SecretBytes.empty }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: data, count: Int(count)))
    }

    /// `ao`, or `as`.
    var strings: [String]? {
        guard isOf("ao") || isOf("as") else { return nil }
        return (0..<childCount).compactMap { child($0)?.string }
    }

    /// `a{ss}`. Duplicate names (which GVariant allows) are refused: which one counts would be a guess.
    var stringDictionary: [String: String]? {
        guard isOf("a{ss}") else { return nil }
        var result: [String: String] = [:]
        for index in 0..<childCount {
            guard let entry = child(index), let name = entry.child(0)?.string, let value = entry.child(1)?.string else { return nil }
            guard result.updateValue(value, forKey: name) == nil else { return nil }
        }
        return result
    }

    /// `a{sv}`: the values, unboxed.
    var variantDictionary: [String: BusVariant]? {
        guard isOf("a{sv}") else { return nil }
        var result: [String: BusVariant] = [:]
        for index in 0..<childCount {
            guard let entry = child(index), let name = entry.child(0)?.string, let value = entry.child(1)?.unboxed else { return nil }
            result[name] = value
        }
        return result
    }
}
