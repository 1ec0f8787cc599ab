/// Appends big-endian integers and length-prefixed fields: the file format's only encoding.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func append(_ value: UInt8) { bytes.append(value) }
    mutating func append(_ value: UInt16) { appendBigEndian(value) }
    mutating func append(_ value: UInt32) { appendBigEndian(value) }
    mutating func append(_ value: UInt64) { appendBigEndian(value) }
    mutating func append(_ value: Int64) { appendBigEndian(UInt64(bitPattern: value)) }
    mutating func append(raw: [UInt8]) { bytes.append(contentsOf: raw) }
    mutating func append(raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }

    /// A u32 length followed by the UTF-8 bytes.
    mutating func append(string: String) {
        append(UInt32(string.utf8.count))
        bytes.append(contentsOf: string.utf8)
    }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
