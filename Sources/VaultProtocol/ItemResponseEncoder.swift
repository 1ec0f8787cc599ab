import VaultCore

/// The hot path of `MessageCodec.encode`: a response that carries one plain item (`get`, `add`,
/// `set`), or one page of plain items (`list`: `items` and `next`, nothing else), written straight
/// into one buffer, byte for byte what `JSONEncoder` with sorted keys writes (ProtocolTests
/// compares the two), without its boxing, key sorting and intermediate `Data`. It runs twice,
/// once counting, so the buffer is allocated once at its exact size (no reallocation leaves a
/// copy of the secret behind); the caller wipes it after sending, as with `SecretSplice`.
/// Anything else (sessions, attributes, unaddressable items, errors, other results) takes the
/// general path.
enum ItemResponseEncoder {
    static func encode(_ line: ResponseLine) -> [UInt8]? {
        guard case .success(let result) = line.response, result.unaddressable == nil, result.status == nil, result.migration == nil,
              result.doctor == nil, result.token == nil, result.message == nil, result.device == nil, result.foreign == nil,
              result.rules == nil, result.audit == nil, result.approval == nil
        else { return nil }
        if let item = result.item, item.isPlain, result.items == nil, result.next == nil {
            let secretIsText = item.secret?.withUnsafeBytes(UTF8Validation.isValid) ?? true
            return ExactBuffer.written { put in
                write(line.id, put)
                raw(#","ok":true,"result":{"item":"#, put)
                write(item, secretIsText: secretIsText, put)
                raw("}}\n", put)
            }
        }
        if result.item == nil, let items = result.items, items.allSatisfy({ $0.isPlain && $0.secret == nil }) {
            return ExactBuffer.written { put in
                write(line.id, put)
                raw(#","ok":true,"result":{"items":["#, put)
                for (index, item) in items.enumerated() {
                    if index > 0 { put(UInt8(ascii: ",")) }
                    write(item, secretIsText: true, put)
                }
                put(UInt8(ascii: "]"))
                if let next = result.next { field(#","next":"#, next, put) }
                raw("}}\n", put)
            }
        }
        return nil
    }

    private static func raw(_ text: StaticString, _ put: (UInt8) -> Void) {
        text.withUTF8Buffer { for byte in $0 { put(byte) } }
    }

    private static func string(_ text: String, _ put: (UInt8) -> Void) {
        JSONString.quoted(text, put)
    }

    /// `,"key":` (or `{"key":` for the first) and the string.
    private static func field(_ key: StaticString, _ text: String, _ put: (UInt8) -> Void) {
        raw(key, put)
        string(text, put)
    }

    /// `{"id":…`.
    private static func write(_ id: RequestID, _ put: (UInt8) -> Void) {
        raw(#"{"id":"#, put)
        switch id {
        case .null: raw("null", put)
        case .number(let number): for byte in String(number).utf8 { put(byte) }
        case .string(let text): string(text, put)
        }
    }

    /// One item's object, keys in sorted order.
    private static func write(_ item: ItemBody, secretIsText: Bool, _ put: (UInt8) -> Void) {
        field(#"{"account":"#, item.account, put)
        field(#","comment":"#, item.comment, put)
        field(#","created":"#, item.created, put)
        if let duplicates = item.duplicates, duplicates > 0 {
            raw(#","duplicates":"#, put)
            for byte in String(duplicates).utf8 { put(byte) }
        }
        field(#","kind":"#, item.kind, put)
        field(#","label":"#, item.label, put)
        field(#","modified":"#, item.modified, put)
        if let secret = item.secret {
            raw(secretIsText ? #","secret":""# : #","secret_b64":""#, put)
            secret.withUnsafeBytes { bytes in
                if secretIsText { _ = JSONString.escape(bytes, put) } else { _ = Base64Bytes.encode(bytes, put) }
            }
            put(UInt8(ascii: "\""))
        }
        field(#","service":"#, item.service, put)
        put(UInt8(ascii: "}"))
    }
}
