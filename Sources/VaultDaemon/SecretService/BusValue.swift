import CGDBusShims
import VaultCore

/// A value vaultd sends over D-Bus, built into a (floating) GVariant by `make`. Strings are
/// Swift strings, so always valid UTF-8; object paths are only those `SecretServicePath` makes.
package indirect enum BusValue {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case uint64(UInt64)
    /// `ay`: the bytes are copied into the message's GVariant (GLib does not wipe it).
    case bytes(SecretBytes)
    case variant(BusValue)
    /// An array of `elementType` (needed for the empty array).
    case array(elementType: String, [BusValue])
    /// `a{s…}` with values of `valueType` (`v`, `s`) in the given order.
    case dictionary(valueType: String, [(String, BusValue)])
    /// `a{o…}`, for GetSecrets' `a{o(oayays)}`.
    case objectDictionary(valueType: String, [(String, BusValue)])
    case tuple([BusValue])

    static func objectPaths(_ paths: [String]) -> BusValue { .array(elementType: "o", paths.map(BusValue.objectPath)) }
    package static func stringDictionary(_ entries: [String: String]) -> BusValue {
        .dictionary(valueType: "s", entries.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    }

    /// A new floating GVariant; whoever receives it (a reply, a container) sinks it.
    package func make() -> OpaquePointer {
        switch self {
        case .string(let text): return g_variant_new_string(text)
        case .objectPath(let path): return g_variant_new_object_path(path)
        case .boolean(let value): return g_variant_new_boolean(value ? 1 : 0)
        case .uint64(let value): return g_variant_new_uint64(guint64(value))
        case .bytes(let secret):
            return secret.withUnsafeBytes { vault_variant_new_bytes($0.baseAddress, gsize($0.count)) }
        case .variant(let inner): return g_variant_new_variant(inner.make())
        case .array(let elementType, let elements):
            return Self.array(elementType, elements.map { $0.make() })
        case .dictionary(let valueType, let entries):
            return Self.array("{s\(valueType)}", entries.map { g_variant_new_dict_entry(g_variant_new_string($0.0), $0.1.make()) })
        case .objectDictionary(let valueType, let entries):
            return Self.array("{o\(valueType)}", entries.map { g_variant_new_dict_entry(g_variant_new_object_path($0.0), $0.1.make()) })
        case .tuple(let elements):
            let children: [OpaquePointer?] = elements.map { $0.make() }
            return children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        }
    }

    private static func array(_ elementType: String, _ children: [OpaquePointer?]) -> OpaquePointer {
        children.withUnsafeBufferPointer { vault_variant_new_array(elementType, $0.baseAddress, gsize($0.count)) }
    }
}
