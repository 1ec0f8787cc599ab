import VaultCore

/// The hot path of `MessageCodec.encode`: a response that carries one plain item (`get`, `add`,
/// `set`, and `resolve_credential` with what it found), `resolve_credential`'s answer that found
/// no item, a remote secret (`kv_get`: the item and `kv`), or one page of plain items (`list`: `items` and `next`, nothing else), written straight
/// into one buffer, byte for byte what `JSONEncoder` with sorted keys writes (ProtocolTests
/// compares the two), without its boxing, key sorting and intermediate `Data`. It runs twice,
/// once counting, so the buffer is allocated once at its exact size (no reallocation leaves a
/// copy of the secret behind); the caller wipes it after sending, as with `SecretSplice`.
/// Anything else (sessions, attributes, unaddressable items, errors, other results) takes the
/// general path.
package enum ItemResponseEncoder {
    package static func encode(_ line: ResponseLine) -> [UInt8]? {
        // The boxed fields asked whether they are there, not copied out to compare with nil.
        guard case .success(let result) = line.response else { return nil }
        if result.$kv.isPresent { return remoteSecret(line.id, result) }
        guard result.holdsOnlyItems else { return nil }
        // `resolve_credential`'s answers that say only what was found: an item, or none.
        var found: String?
        if result.$resolution.isPresent {
            guard let resolution = result.resolution, resolution.among == nil, resolution.count == nil,
                  result.items == nil, result.next == nil else { return nil }
            found = resolution.found
            if result.item == nil { return ExactBuffer.written(Resolution(id: line.id, found: resolution.found)) }
        }
        if let item = result.item, item.isPlain, result.items == nil, result.next == nil {
            let secretIsText = item.secret?.withUnsafeBytes(UTF8Validation.isValid) ?? true
            return ExactBuffer.written(OneItem(id: line.id, item: item, secretIsText: secretIsText, found: found))
        }
        if result.item == nil, let items = result.items, items.allSatisfy({ $0.isPlain && $0.secret == nil }) {
            return ExactBuffer.written(ItemPage(id: line.id, items: items, next: result.next))
        }
        return nil
    }

    /// `get`, `add`, `set`: `{"id":…,"ok":true,"result":{"item":{…}}}`; `resolve_credential`'s
    /// vault item: `…{"item":{…},"resolution":{"found":…}}}`.
    private struct OneItem: ExactlyWritten {
        let id: RequestID
        let item: ItemBody
        let secretIsText: Bool
        let found: String?

        func write<Sink: ByteSink>(to sink: inout Sink) {
            ItemResponseEncoder.write(id, to: &sink)
            sink.put(#","ok":true,"result":{"item":"#)
            ItemResponseEncoder.write(item, secretIsText: secretIsText, to: &sink)
            if let found {
                ItemResponseEncoder.field(#","resolution":{"found":"#, found, to: &sink)
                sink.put(UInt8(ascii: "}"))
            }
            sink.put("}}\n")
        }
    }

    /// `kv_get`'s answer: nothing but a plain item and `kv`.
    private static func remoteSecret(_ id: RequestID, _ result: ResultBody) -> [UInt8]? {
        var others = result
        others.kv = nil
        guard others.holdsOnlyItems, !others.$resolution.isPresent, others.items == nil, others.next == nil,
              let item = result.item, item.isPlain, let kv = result.kv, kv.age.isFinite else { return nil }
        let secretIsText = item.secret?.withUnsafeBytes(UTF8Validation.isValid) ?? true
        return ExactBuffer.written(RemoteSecret(id: id, item: item, secretIsText: secretIsText, kv: kv))
    }

    /// `{"id":…,"ok":true,"result":{"item":{…},"kv":{"age":…,"created":…,"offline":…,"path":…,"remote":…,"version":…}}}`.
    private struct RemoteSecret: ExactlyWritten {
        let id: RequestID
        let item: ItemBody
        let secretIsText: Bool
        let kv: KVBody

        func write<Sink: ByteSink>(to sink: inout Sink) {
            ItemResponseEncoder.write(id, to: &sink)
            sink.put(#","ok":true,"result":{"item":"#)
            ItemResponseEncoder.write(item, secretIsText: secretIsText, to: &sink)
            sink.put(#","kv":{"age":"#)
            // JSONEncoder's form of a Double: its description, without a trailing ".0".
            var age = kv.age.description
            if age.hasSuffix(".0") { age.removeLast(2) }
            age.withUTF8 { sink.put(UnsafeRawBufferPointer($0)) }
            ItemResponseEncoder.field(#","created":"#, kv.created, to: &sink)
            if let offline = kv.offline { sink.put(offline ? #","offline":true"# : #","offline":false"#) }
            ItemResponseEncoder.field(#","path":"#, kv.path, to: &sink)
            ItemResponseEncoder.field(#","remote":"#, kv.remote, to: &sink)
            sink.put(#","version":"#)
            sink.put(decimal: kv.version)
            sink.put("}}}\n")
        }
    }

    /// `resolve_credential` finding no item: `{"id":…,"ok":true,"result":{"resolution":{"found":…}}}`.
    private struct Resolution: ExactlyWritten {
        let id: RequestID
        let found: String

        func write<Sink: ByteSink>(to sink: inout Sink) {
            ItemResponseEncoder.write(id, to: &sink)
            ItemResponseEncoder.field(#","ok":true,"result":{"resolution":{"found":"#, found, to: &sink)
            sink.put("}}}\n")
        }
    }

    /// A page of `list`: `{"id":…,"ok":true,"result":{"items":[…],"next":…}}`.
    private struct ItemPage: ExactlyWritten {
        let id: RequestID
        let items: [ItemBody]
        let next: String?

        func write<Sink: ByteSink>(to sink: inout Sink) {
            ItemResponseEncoder.write(id, to: &sink)
            sink.put(#","ok":true,"result":{"items":["#)
            for (index, item) in items.enumerated() {
                if index > 0 { sink.put(UInt8(ascii: ",")) }
                ItemResponseEncoder.write(item, secretIsText: true, to: &sink)
            }
            sink.put(UInt8(ascii: "]"))
            if let next { field(#","next":"#, next, to: &sink) }
            sink.put("}}\n")
        }
    }

    /// `,"key":` (or `{"key":` for the first) and the string.
    private static func field<Sink: ByteSink>(_ key: StaticString, _ text: String, to sink: inout Sink) {
        sink.put(key)
        JSONString.quoted(text, into: &sink)
    }

    /// `{"id":…`.
    private static func write<Sink: ByteSink>(_ id: RequestID, to sink: inout Sink) {
        sink.put(#"{"id":"#)
        switch id {
        case .null: sink.put("null")
        case .number(let number): sink.put(decimal: number)
        case .string(let text): JSONString.quoted(text, into: &sink)
        }
    }

    /// One item's object, keys in sorted order.
    private static func write<Sink: ByteSink>(_ item: ItemBody, secretIsText: Bool, to sink: inout Sink) {
        field(#"{"account":"#, item.account, to: &sink)
        field(#","comment":"#, item.comment, to: &sink)
        field(#","created":"#, item.created, to: &sink)
        if let duplicates = item.duplicates, duplicates > 0 {
            sink.put(#","duplicates":"#)
            sink.put(decimal: duplicates)
        }
        field(#","kind":"#, item.kind, to: &sink)
        field(#","label":"#, item.label, to: &sink)
        field(#","modified":"#, item.modified, to: &sink)
        if let secret = item.secret {
            sink.put(secretIsText ? #","secret":""# : #","secret_b64":""#)
            secret.withUnsafeBytes { bytes in
                if secretIsText { JSONString.escape(bytes, into: &sink) } else { Base64Bytes.encode(bytes, into: &sink) }
            }
            sink.put(UInt8(ascii: "\""))
        }
        field(#","service":"#, item.service, to: &sink)
        sink.put(UInt8(ascii: "}"))
    }
}
