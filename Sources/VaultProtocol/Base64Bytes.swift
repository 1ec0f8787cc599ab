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

    private static func character(_ value: UInt8) -> UInt8 {
        switch value {
        case 0..<26: UInt8(ascii: "A") + value
        case 26..<52: UInt8(ascii: "a") + value - 26
        case 52..<62: UInt8(ascii: "0") + value - 52
        case 62: UInt8(ascii: "+")
        default: UInt8(ascii: "/")
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
        var index = 0
        while bytes.count - index >= 3 {
            let bits = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            put(bits, digits: 4, into: &sink)
            index += 3
        }
        switch bytes.count - index {
        case 1:
            put(UInt32(bytes[index]) << 16, digits: 2, into: &sink)
            sink.put(UInt8(ascii: "="))
            sink.put(UInt8(ascii: "="))
        case 2:
            put(UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8, digits: 3, into: &sink)
            sink.put(UInt8(ascii: "="))
        default:
            break
        }
    }

    /// The first `digits` six-bit digits of a 24-bit group, as characters.
    @inline(__always)
    private static func put<Sink: ByteSink>(_ bits: UInt32, digits: Int, into sink: inout Sink) {
        for digit in 0..<digits {
            sink.put(character(UInt8(truncatingIfNeeded: bits >> UInt32(18 - 6 * digit)) & 0x3F))
        }
    }

    /// The base64 text of `bytes` and a newline, in one buffer of exactly its size: an audit.log
    /// line (Foundation's `base64EncodedString` and the copies around it cost about 1,100
    /// instructions more a record: docs/performance.md, part H).
    public static func line(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { ExactBuffer.written(Line(bytes: $0)) }
    }

    private struct Line: ExactlyWritten {
        let bytes: UnsafeRawBufferPointer

        func write<Sink: ByteSink>(to sink: inout Sink) {
            Base64Bytes.encode(bytes, into: &sink)
            sink.put(UInt8(ascii: "\n"))
        }
    }
}
