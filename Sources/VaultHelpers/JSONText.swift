/// JSON string literals appended byte by byte, so a secret goes from `SecretBytes` into the one
/// output buffer without passing through a `String` that could not be wiped.
package enum JSONText {
    /// Appends `bytes` (UTF-8) as a quoted JSON string: `"` and `\` escaped, control characters as `\u00XX`.
    package static func appendString(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case 0..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    package static func appendString(_ text: String, to output: inout [UInt8]) {
        var copy = text
        copy.withUTF8 { appendString(UnsafeRawBufferPointer($0), to: &output) }
    }
}
