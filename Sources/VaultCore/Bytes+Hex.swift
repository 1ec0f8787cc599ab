extension Sequence<UInt8> {
    /// The bytes as lowercase hexadecimal, two digits each.
    public var lowercaseHex: String {
        var digits: [UInt8] = []
        digits.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            digits.append(Self.hexDigit(byte >> 4))
            digits.append(Self.hexDigit(byte & 0x0F))
        }
        return String(decoding: digits, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
