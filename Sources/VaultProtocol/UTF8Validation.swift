/// Well-formed UTF-8 (Unicode Table 3-7: no overlong forms, no surrogates, nothing past
/// U+10FFFF), checked over raw bytes so that a secret need not become a `String` to be checked.
enum UTF8Validation {
    /// The length of the well-formed sequence starting at `index`, or nil if there is none.
    static func sequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; second = 0x80...0x8F
        default: return nil
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
        for offset in 2..<max(length, 2) where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
        return length
    }

    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            guard let length = sequenceLength(bytes, at: index) else { return false }
            index += length
        }
        return true
    }
}
