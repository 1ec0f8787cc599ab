/// The client's hot path for the commonest request line, a `get`: `{"account":…,"id":…,"op":"get",
/// "service":…}` and the newline, written into one exact-size buffer, byte for byte what
/// `MessageCodec.encodedLine` (JSONEncoder, sorted keys, slashes unescaped) writes (tests compare
/// the two). Every other request takes that general path.
enum GetRequestEncoder {
    static func encode(_ line: RequestLine) -> [UInt8]? {
        guard case .get(let name) = line.request else { return nil }
        return ExactBuffer.written(Line(id: line.id, name: name))
    }

    private struct Line: ExactlyWritten {
        let id: RequestID?
        let name: ItemName

        func write<Sink: ByteSink>(to sink: inout Sink) {
            sink.put(#"{"account":"#)
            JSONString.quoted(name.account, into: &sink)
            RequestID.writeMember(id, to: &sink)
            sink.put(#","op":"get","service":"#)
            JSONString.quoted(name.service, into: &sink)
            sink.put("}\n")
        }
    }
}
