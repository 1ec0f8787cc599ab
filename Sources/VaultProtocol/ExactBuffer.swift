/// What a writer puts, in one buffer of exactly its size: the writer runs twice (counting, then
/// filling), so no buffer grows and no reallocation leaves a copy of a secret behind. Used by the
/// hot-path encoders (ItemResponseEncoder, GetRequestEncoder, AuditEntryEncoder) and SecretSplice.
///
/// The writer is generic over its `ByteSink`, so each pass is compiled for its sink: a byte put
/// is an add (counting) or a store (filling), not a call through a closure, and runs of bytes are
/// counted or copied at once (a closure call per byte, twice, cost vaultd about 3,000
/// instructions per cached `get`: docs/performance.md, part H).
enum ExactBuffer {
    static func written(_ writer: some ExactlyWritten) -> [UInt8] {
        var counter = ByteCount()
        writer.write(to: &counter)
        return [UInt8](unsafeUninitializedCapacity: counter.count) { buffer, initialized in
            var filler = ByteFill(buffer)
            writer.write(to: &filler)
            // Both passes saw the same values; anything else is a programming error.
            precondition(filler.count == counter.count, "ExactBuffer: the filling pass wrote \(filler.count) of \(counter.count) bytes")
            initialized = filler.count
        }
    }
}

/// Something `ExactBuffer` can write: the same bytes to any sink, every time.
protocol ExactlyWritten {
    func write<Sink: ByteSink>(to sink: inout Sink)
}
