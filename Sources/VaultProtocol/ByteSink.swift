/// Where the hot-path encoders put their bytes: a `ByteCount` on the first pass, a `ByteFill` of
/// exactly that size on the second (`ExactBuffer`).
protocol ByteSink {
    mutating func put(_ byte: UInt8)
    mutating func put(_ bytes: UnsafeRawBufferPointer)
}

extension ByteSink {
    mutating func put(_ text: StaticString) {
        text.withUTF8Buffer { put(UnsafeRawBufferPointer($0)) }
    }

    /// A number in decimal.
    mutating func put(decimal number: some BinaryInteger) {
        var text = String(number)
        text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }
}

/// Counts what is put.
struct ByteCount: ByteSink {
    private(set) var count = 0

    mutating func put(_ byte: UInt8) { count += 1 }
    mutating func put(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }
}

/// Writes what is put into a buffer, which it never passes (a writer that puts more than it
/// counted traps instead).
struct ByteFill: ByteSink {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func put(_ byte: UInt8) {
        precondition(count < buffer.count, "ByteFill: buffer full")
        buffer[count] = byte
        count += 1
    }

    mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        precondition(bytes.count <= buffer.count - count, "ByteFill: buffer full")
        UnsafeMutableRawPointer(buffer.baseAddress! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }
}
