import VaultCore

/// The hot path of `MessageCodec.encode`: a response that carries one plain item (`get`, `add`,
/// `set`) written straight into one buffer, byte for byte what `JSONEncoder` with sorted keys
/// writes (ProtocolTests compares the two), without its boxing, key sorting and intermediate
/// `Data`. It runs twice, once counting, so the buffer is allocated once at its exact size (no
/// reallocation leaves a copy of the secret behind); the caller wipes it after sending, as with
/// `SecretSplice`. Anything else (sessions, attributes, errors, other results) takes the general path.
enum ItemResponseEncoder {
    static func encode(_ line: ResponseLine) -> [UInt8]? {
        guard case .success(let result) = line.response, let item = result.item, item.session == nil, item.attributes == nil,
              result.items == nil, result.unaddressable == nil, result.next == nil, result.status == nil, result.migration == nil,
              result.doctor == nil, result.token == nil, result.message == nil, result.device == nil, result.foreign == nil
        else { return nil }
        let secretIsText = item.secret?.withUnsafeBytes(UTF8Validation.isValid) ?? true
        var count = 0
        write(line.id, item, secretIsText: secretIsText) { _ in count += 1 }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var position = 0
            write(line.id, item, secretIsText: secretIsText) { byte in
                buffer[position] = byte
                position += 1
            }
            initialized = position
        }
    }

    /// `{"id":…,"ok":true,"result":{"item":{…}}}` and the newline, keys in sorted order.
    private static func write(_ id: RequestID, _ item: ItemBody, secretIsText: Bool, _ put: (UInt8) -> Void) {
        func raw(_ text: StaticString) {
            text.withUTF8Buffer { for byte in $0 { put(byte) } }
        }
        func string(_ text: String) {
            put(UInt8(ascii: "\""))
            var text = text
            text.withUTF8 { JSONString.escape(UnsafeRawBufferPointer($0), put) }
            put(UInt8(ascii: "\""))
        }
        raw(#"{"id":"#)
        switch id {
        case .null: raw("null")
        case .number(let number): for byte in String(number).utf8 { put(byte) }
        case .string(let text): string(text)
        }
        raw(#","ok":true,"result":{"item":{"account":"#)
        string(item.account)
        raw(#","comment":"#)
        string(item.comment)
        raw(#","created":"#)
        string(item.created)
        if let duplicates = item.duplicates, duplicates > 0 {
            raw(#","duplicates":"#)
            for byte in String(duplicates).utf8 { put(byte) }
        }
        raw(#","kind":"#)
        string(item.kind)
        raw(#","label":"#)
        string(item.label)
        raw(#","modified":"#)
        string(item.modified)
        if let secret = item.secret {
            raw(secretIsText ? #","secret":""# : #","secret_b64":""#)
            secret.withUnsafeBytes { bytes in
                if secretIsText { _ = JSONString.escape(bytes, put) } else { _ = Base64Bytes.encode(bytes, put) }
            }
            put(UInt8(ascii: "\""))
        }
        raw(#","service":"#)
        string(item.service)
        raw("}}}\n")
    }
}
