/// Reads what `ByteWriter` wrote, failing with `ByteReader.Error` instead of trapping on short input.
struct ByteReader {
    struct Error: Swift.Error, CustomStringConvertible {
        let description: String
    }

    private let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func read(count: Int, _ what: String) throws -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw Error(description: "\(what) needs \(count) bytes at offset \(offset), only \(remaining) left")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Passes over `count` bytes, which must be there.
    mutating func skip(count: Int, _ what: String) throws {
        guard count >= 0, count <= remaining else {
            throw Error(description: "\(what) needs \(count) bytes at offset \(offset), only \(remaining) left")
        }
        offset += count
    }

    /// A copy of the bytes from `start` to where reading stands.
    func bytes(from start: Int) -> [UInt8] { Array(bytes[start..<offset]) }

    mutating func readUInt8(_ what: String) throws -> UInt8 { try readInteger(what) }
    mutating func readUInt16(_ what: String) throws -> UInt16 { try readInteger(what) }
    mutating func readUInt32(_ what: String) throws -> UInt32 { try readInteger(what) }
    mutating func readUInt64(_ what: String) throws -> UInt64 { try readInteger(what) }
    mutating func readInt64(_ what: String) throws -> Int64 { Int64(bitPattern: try readInteger(what) as UInt64) }

    /// A u32 length and that many bytes of valid UTF-8, at most `limit` bytes.
    mutating func readString(_ what: String, limit: Int) throws -> String {
        let length = Int(try readUInt32("\(what) length"))
        guard length <= limit else { throw Error(description: "\(what) is \(length) bytes, over the \(limit) limit") }
        let raw = try read(count: length, what)
        guard let string = String(validating: raw, as: UTF8.self) else {
            throw Error(description: "\(what) is not valid UTF-8")
        }
        return string
    }

    private mutating func readInteger<T: FixedWidthInteger>(_ what: String) throws -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else {
            throw Error(description: "\(what) needs \(size) bytes at offset \(offset), only \(remaining) left")
        }
        var value: T = 0
        for index in 0..<size { value = value << 8 | T(bytes[offset + index]) }
        offset += size
        return value
    }
}
