import VaultCore

/// The client's hot path for a credential helper's request line, `resolve_credential`: its keys
/// in sorted order (`account`, `attributes` with their own keys sorted and null for an absent
/// attribute, `helper`, `id`, `op`, `service`, `session_account`, `session_service`, the
/// optional ones only when given) and the newline, byte for byte what `MessageCodec.encodedLine`
/// writes (tests compare the two), without JSONEncoder, whose first use in a process costs a
/// helper more than the request's round trip. Attribute names other than the foreign schemas'
/// take the general path.
enum CredentialRequestEncoder {
    static let attributeNames = Set(ForeignSchema.allCases.flatMap(\.keyAttributes))

    static func encode(_ line: RequestLine) -> [UInt8]? {
        guard case .resolveCredential(let request) = line.request else { return nil }
        let attributes = request.attributes.map { $0.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
        guard attributes?.allSatisfy({ attributeNames.contains($0.key) }) ?? true else { return nil }
        return ExactBuffer.written(Line(id: line.id, request: request, attributes: attributes))
    }

    private struct Line: ExactlyWritten {
        let id: RequestID?
        let request: CredentialRequest
        let attributes: [(key: String, value: String?)]?

        func write<Sink: ByteSink>(to sink: inout Sink) {
            sink.put(UInt8(ascii: "{"))
            if let account = request.account {
                sink.put(#""account":"#)
                JSONString.quoted(account, into: &sink)
                sink.put(UInt8(ascii: ","))
            }
            if let attributes {
                sink.put(#""attributes":{"#)
                for (index, (name, value)) in attributes.enumerated() {
                    if index > 0 { sink.put(UInt8(ascii: ",")) }
                    JSONString.quoted(name, into: &sink)
                    sink.put(UInt8(ascii: ":"))
                    if let value { JSONString.quoted(value, into: &sink) } else { sink.put("null") }
                }
                sink.put("},")
            }
            sink.put(#""helper":"#)
            JSONString.quoted(request.helper, into: &sink)
            RequestID.writeMember(id, to: &sink)
            sink.put(#","op":"resolve_credential","service":"#)
            JSONString.quoted(request.service, into: &sink)
            if let account = request.sessionAccount {
                sink.put(#","session_account":"#)
                JSONString.quoted(account, into: &sink)
            }
            if let service = request.sessionService {
                sink.put(#","session_service":"#)
                JSONString.quoted(service, into: &sink)
            }
            sink.put("}\n")
        }
    }
}
