/// JSON string contents read and written byte by byte, so that a secret goes from a request line
/// into `SecretBytes` (and from `SecretBytes` into a response line) without a `String` or `Data`
/// copy in between. Reading follows RFC 8259 strictly: the escapes `\" \\ \/ \b \f \n \r \t` and
/// `\uXXXX` (a surrogate pair for characters beyond U+FFFF), no raw control characters, and
/// well-formed UTF-8. Writing escapes exactly as Foundation's `JSONEncoder` does with `.withoutEscapingSlashes`.
enum JSONString {
    enum Failure: Error, Equatable {
        /// The closing quote never came.
        case unterminated
        /// A bad escape, a lone surrogate, a raw control character or malformed UTF-8.
        case invalid
    }

    /// Decodes the string whose contents start at `start` (just after the opening quote) up to
    /// its closing quote. With `output` nil it only checks and counts; otherwise it writes the
    /// decoded bytes there (`output` must hold the counted length). Returns the index of the
    /// closing quote and the decoded length.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, from start: Int, into output: UnsafeMutableRawBufferPointer? = nil
    ) throws(Failure) -> (end: Int, count: Int) {
        var index = start
        var count = 0
        func put(_ byte: UInt8) {
            output?[count] = byte
            count += 1
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                return (index, count)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw .unterminated }
                let escaped = bytes[index + 1]
                index += 2
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(escaped)
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(bytes, at: index)
                    index += 4
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw .invalid
                        }
                        let low = try hex4(bytes, at: index + 2)
                        guard (0xDC00...0xDFFF).contains(low) else { throw .invalid }
                        index += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw .invalid
                    }
                    putUTF8(scalar, put)
                default:
                    throw .invalid
                }
            case 0x00..<0x20:
                throw .invalid
            case 0x20..<0x80:
                put(byte)
                index += 1
            default:
                guard let length = UTF8Validation.sequenceLength(bytes, at: index) else { throw .invalid }
                for offset in 0..<length { put(bytes[index + offset]) }
                index += length
            }
        }
        throw .unterminated
    }

    /// The index of the closing quote of the string whose contents start at `start`, without
    /// checking what is inside (for strings this reader skips), or nil if there is none.
    static func end(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""): return index
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return nil
    }

    private static func hex4(_ bytes: UnsafeRawBufferPointer, at index: Int) throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .unterminated }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let digit: UInt32
            switch bytes[index + offset] {
            case let c where (0x30...0x39).contains(c): digit = UInt32(c - 0x30)
            case let c where (0x41...0x46).contains(c): digit = UInt32(c - 0x41 + 10)
            case let c where (0x61...0x66).contains(c): digit = UInt32(c - 0x61 + 10)
            default: throw .invalid
            }
            value = value << 4 | digit
        }
        return value
    }

    private static func putUTF8(_ scalar: UInt32, _ put: (UInt8) -> Void) {
        switch scalar {
        case 0..<0x80:
            put(UInt8(scalar))
        case 0x80..<0x800:
            put(UInt8(0xC0 | scalar >> 6))
            put(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            put(UInt8(0xE0 | scalar >> 12))
            put(UInt8(0x80 | scalar >> 6 & 0x3F))
            put(UInt8(0x80 | scalar & 0x3F))
        default:
            put(UInt8(0xF0 | scalar >> 18))
            put(UInt8(0x80 | scalar >> 12 & 0x3F))
            put(UInt8(0x80 | scalar >> 6 & 0x3F))
            put(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: Writing

    /// Writes `text` (UTF-8; a malformed sequence becomes U+FFFD, as `String(decoding:)` does)
    /// as JSON string contents, without the quotes, into `sink`. Called once counting to size
    /// the buffer, then to fill it (`ExactBuffer`).
    static func escape<Sink: ByteSink>(_ text: UnsafeRawBufferPointer, into sink: inout Sink) {
        // Runs of ASCII that need no escape go to the sink whole (most text is nothing else);
        // other ASCII bytes are escaped one by one, and a run of bytes of 0x80 and over goes
        // through Swift's UTF-8 parser, which repairs it as `String(decoding:)` does. Cutting at
        // ASCII bytes changes nothing: no multi-byte sequence, and no malformed part of one,
        // contains an ASCII byte.
        var index = 0
        var plainFrom = 0
        while index < text.count {
            let byte = text[index]
            if byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if plainFrom < index { sink.put(UnsafeRawBufferPointer(rebasing: text[plainFrom..<index])) }
            if byte < 0x80 {
                escapeASCII(byte, into: &sink)
                index += 1
            } else {
                var end = index + 1
                while end < text.count, text[end] >= 0x80 { end += 1 }
                escapeNonASCII(UnsafeRawBufferPointer(rebasing: text[index..<end]), into: &sink)
                index = end
            }
            plainFrom = index
        }
        if plainFrom < index { sink.put(UnsafeRawBufferPointer(rebasing: text[plainFrom..<index])) }
    }

    /// Bytes of 0x80 and over: each well-formed sequence as it is, each malformed part as U+FFFD.
    private static func escapeNonASCII<Sink: ByteSink>(_ text: UnsafeRawBufferPointer, into sink: inout Sink) {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = text.makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let sequence):
                for byte in sequence { sink.put(byte) }
            case .error:
                sink.put(0xEF)
                sink.put(0xBF)
                sink.put(0xBD)
            case .emptyInput:
                return
            }
        }
    }

    /// `text` as a JSON string, quotes included, into `sink`.
    static func quoted<Sink: ByteSink>(_ text: String, into sink: inout Sink) {
        sink.put(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { escape(UnsafeRawBufferPointer($0), into: &sink) }
        sink.put(UInt8(ascii: "\""))
    }

    private static func escapeASCII<Sink: ByteSink>(_ byte: UInt8, into sink: inout Sink) {
        let named: UInt8? = switch byte {
        case UInt8(ascii: "\""): UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        default: nil
        }
        if let named {
            sink.put(UInt8(ascii: "\\"))
            sink.put(named)
        } else if byte < 0x20 {
            func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x61 + value - 10 }
            sink.put(UInt8(ascii: "\\"))
            sink.put(UInt8(ascii: "u"))
            sink.put(UInt8(ascii: "0"))
            sink.put(UInt8(ascii: "0"))
            sink.put(hexDigit(byte >> 4))
            sink.put(hexDigit(byte & 0xF))
        } else {
            sink.put(byte)
        }
    }
}
