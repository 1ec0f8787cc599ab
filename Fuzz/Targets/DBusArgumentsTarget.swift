import CGDBusShims
import VaultCore
import VaultDaemon

/// The Secret Service provider's reading of D-Bus arguments: the input's first byte picks one of
/// the signatures its methods take, the rest is that value serialized (GVariant, untrusted, as
/// GLib hands a call's body to vaultd). Every accessor is tried on it; attributes that parse,
/// built again as vaultd sends them (BusValue), parse to the same attributes.
enum DBusArgumentsTarget: FuzzTarget {
    static let name = "dbus-arguments"
    static let maxLength = 4096
    static let signatures = ["a{ss}", "(oayays)", "a{sv}", "ao", "(a{sv}(oayays)b)", "(sv)", "v", "s", "o", "ay", "(a{ss})", "(ss)"]

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let first = input.first else { return }
        let signature = signatures[Int(first) % signatures.count]
        let type = g_variant_type_new(signature)
        defer { g_variant_type_free(type) }
        let bytes = input.dropFirst().withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let pointer = g_variant_new_from_bytes(type, bytes, 0) else { return }
        let value = BusVariant(retaining: pointer)
        visit(value, depth: 0)
        if let attributes = try? SecretServiceAttributes.parse(value) {
            let rebuilt = BusVariant(retaining: BusValue.stringDictionary(attributes).make())
            guard let again = try? SecretServiceAttributes.parse(rebuilt) else { throw FuzzFinding("attributes that parsed, sent back, do not parse") }
            try FuzzFinding.check(again == attributes, "attributes that parsed, sent back, parse differently")
        }
    }

    /// Every accessor on `value` and, a few levels down, on its children.
    static func visit(_ value: BusVariant, depth: Int) {
        _ = value.string
        _ = value.boolean
        _ = try? value.secretBytes(atMost: ItemLimits.maxSecretBytes, "the secret")
        _ = try? value.strings(atMost: 1000)
        _ = try? value.stringDictionary(nameBytes: ItemLimits.maxAttributeNameBytes, valueBytes: ItemLimits.maxAttributeValueBytes)
        _ = value.variantDictionary(atMost: 64)
        guard depth < 4 else { return }
        if let inner = value.unboxed { visit(inner, depth: depth + 1) }
        for index in 0..<min(value.childCount, 16) {
            if let child = value.child(index) { visit(child, depth: depth + 1) }
        }
        _ = value.child(-1)
        _ = value.child(value.childCount)
    }
}
