/// An item's 16-byte random id as two integers: a dictionary key without an array of its own
/// (`OpenVault.keysByID` holds one per item).
struct ItemID: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    /// The id in the first 16 bytes of `bytes` (at least 16).
    init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= VaultFileFormat.itemIDSize, "an item id is 16 bytes")
        high = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        low = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    }

    init(_ bytes: [UInt8]) { self = bytes.withUnsafeBytes { ItemID($0) } }
}
