/// What a writer puts, in one buffer of exactly its size: the writer runs twice (counting, then
/// filling), so no buffer grows and no reallocation leaves a copy of a secret behind. Used by the
/// hot-path encoders (ItemResponseEncoder, GetRequestEncoder, AuditEntryEncoder).
enum ExactBuffer {
    static func written(_ write: ((UInt8) -> Void) -> Void) -> [UInt8] {
        var count = 0
        write { _ in count += 1 }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var position = 0
            write { byte in
                buffer[position] = byte
                position += 1
            }
            initialized = position
        }
    }
}
