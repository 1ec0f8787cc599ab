/// The client's hot path for the commonest request line, a `get`: `{"account":…,"id":…,"op":"get",
/// "service":…}` and the newline, written into one exact-size buffer, byte for byte what
/// `MessageCodec.encodedLine` (JSONEncoder, sorted keys, slashes unescaped) writes (tests compare
/// the two). Every other request takes that general path.
enum GetRequestEncoder {
    static func encode(_ line: RequestLine) -> [UInt8]? {
        guard case .get(let name) = line.request else { return nil }
        return ExactBuffer.written { put in write(line.id, name, put) }
    }

    private static func write(_ id: RequestID?, _ name: ItemName, _ put: (UInt8) -> Void) {
        func raw(_ text: StaticString) {
            text.withUTF8Buffer { for byte in $0 { put(byte) } }
        }
        func string(_ text: String) { JSONString.quoted(text, put) }
        raw(#"{"account":"#)
        string(name.account)
        switch id {
        case nil: break
        case .null?: raw(#","id":null"#)
        case .number(let number)?:
            raw(#","id":"#)
            for byte in String(number).utf8 { put(byte) }
        case .string(let text)?:
            raw(#","id":"#)
            string(text)
        }
        raw(#","op":"get","service":"#)
        string(name.service)
        raw("}\n")
    }
}
