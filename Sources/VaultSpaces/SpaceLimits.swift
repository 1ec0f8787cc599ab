/// The largest numbers a space's entries may carry. Anything above is refused as tampered, so
/// that `seq + 1` and `generation + 1` never overflow, whoever wrote the entry.
public enum SpaceLimits {
    /// An item's or the index's sequence number: 2^53, beyond any count of real writes.
    public static let maxSeq = 1 << 53
    /// A key generation: one per device removed.
    public static let maxGeneration = 1 << 20
}
