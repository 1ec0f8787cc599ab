extension RequestID {
    /// Writes `,"id":…` for `id` as JSONEncoder writes the member (nothing when absent), for the
    /// request encoders' fast paths.
    static func writeMember<Sink: ByteSink>(_ id: RequestID?, to sink: inout Sink) {
        switch id {
        case nil: break
        case .null?: sink.put(#","id":null"#)
        case .number(let number)?:
            sink.put(#","id":"#)
            sink.put(decimal: number)
        case .string(let text)?:
            sink.put(#","id":"#)
            JSONString.quoted(text, into: &sink)
        }
    }
}
