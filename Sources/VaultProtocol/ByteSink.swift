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

    /// A number in decimal, as `String(number)` writes it. Written digit by digit into a buffer
    /// on the stack: `String(number)` goes through the generic integer formatter, which cost a
    /// `get` about 570 instructions a number (docs/performance.md, part I).
    mutating func put(decimal number: Int64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            // Int64.min is 19 digits and a sign.
            var index = digits.count
            var magnitude = number.magnitude
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if number < 0 {
                index -= 1
                digits[index] = UInt8(ascii: "-")
            }
            put(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: digits[index...])))
        }
    }

    mutating func put(decimal number: Int) { put(decimal: Int64(number)) }
    mutating func put(decimal number: Int32) { put(decimal: Int64(number)) }
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
