import VaultCore

/// Standard base64 with padding (RFC 4648 §4) between raw bytes and `SecretBytes`, for
/// `secret_b64`, without a `String` or `Data` copy of the secret; and audit.log's lines.
public enum Base64Bytes {
    private static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    /// The decoded bytes, or nil unless `text` is whole groups of four with `=` only as padding
    /// at the end.
    static func decode(_ text: SecretBytes) -> SecretBytes? {
        text.withUnsafeBytes { text -> SecretBytes? in
            guard text.count % 4 == 0 else { return nil }
            var padding = 0
            if text.count >= 4 && text[text.count - 1] == UInt8(ascii: "=") {
                padding = text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1
            }
            for index in 0..<(text.count - padding) where value(text[index]) == nil { return nil }
            let count = text.count / 4 * 3 - padding
            return SecretBytes(count: count) { output in
                var written = 0
                var group = 0
                while group < text.count {
                    var bits: UInt32 = 0
                    for offset in 0..<4 {
                        bits = bits << 6 | UInt32(value(text[group + offset]) ?? 0)
                    }
                    for shift in [16, 8, 0] where written < count {
                        output[written] = UInt8(truncatingIfNeeded: bits >> UInt32(shift))
                        written += 1
                    }
                    group += 4
                }
            }
        }
    }

    /// Writes the base64 text of `bytes` into `sink`: whole groups of three bytes, then the last
    /// one or two with their padding.
    static func encode<Sink: ByteSink>(_ bytes: UnsafeRawBufferPointer, into sink: inout Sink) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { group in
            // The group held characters of a secret (`secret_b64`).
            defer { SecretBytes.wipe(UnsafeMutableRawBufferPointer(group)) }
            var index = 0
            while bytes.count - index >= 3 {
                write(bytes, from: index, count: 3, to: group.baseAddress!)
                sink.put(UnsafeRawBufferPointer(group))
                index += 3
            }
            if index < bytes.count {
                write(bytes, from: index, count: bytes.count - index, to: group.baseAddress!)
                sink.put(UnsafeRawBufferPointer(group))
            }
        }
    }

    /// The number of characters base64 makes of `count` bytes.
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// One group's four characters, for its `count` (1 to 3) bytes from `index`: `=` in place of
    /// the characters a short last group lacks.
    @inline(__always)
    private static func write(_ bytes: UnsafeRawBufferPointer, from index: Int, count: Int, to out: UnsafeMutablePointer<UInt8>) {
        let bits = UInt32(bytes[index]) << 16 | (count > 1 ? UInt32(bytes[index + 1]) << 8 : 0) | (count > 2 ? UInt32(bytes[index + 2]) : 0)
        let alphabet = Self.alphabet.utf8Start
        out[0] = alphabet[Int(bits >> 18 & 0x3F)]
        out[1] = alphabet[Int(bits >> 12 & 0x3F)]
        out[2] = count > 1 ? alphabet[Int(bits >> 6 & 0x3F)] : UInt8(ascii: "=")
        out[3] = count > 2 ? alphabet[Int(bits & 0x3F)] : UInt8(ascii: "=")
    }

    /// RFC 4648's alphabet, digit values 0 to 63 in order.
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// The base64 text of `bytes` and a newline, in one buffer of exactly its size: an audit.log
    /// line. Its size is known from the count, so the characters are written straight into it, a
    /// group at a time (Foundation's `base64EncodedString` and the copies around it cost about
    /// 1,100 instructions more a record, docs/performance.md part H; counting, then filling, a
    /// character at a time, 3,500 more, part I).
    public static func line(_ bytes: [UInt8]) -> [UInt8] {
        let count = encodedCount(bytes.count) + 1
        return bytes.withUnsafeBytes { bytes in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                var index = 0
                var written = 0
                while index < bytes.count {
                    write(bytes, from: index, count: min(3, bytes.count - index), to: out.baseAddress! + written)
                    index += 3
                    written += 4
                }
                out[written] = UInt8(ascii: "\n")
                initialized = count
            }
        }
    }
}
