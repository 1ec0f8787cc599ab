import VaultCore

/// The hot path of `MessageCodec.decode` for the commonest lines, a `get`
/// (`{"id":1,"op":"get","service":"…","account":"…"}`) and a `kv_get` of a cached remote secret
/// (`{"id":1,"op":"kv_get","remote":"…","path":"…","field":"…"}`, `field` optional), in any key
/// order, with JSON whitespace. It reads only the plainest form, where it cannot differ from
/// `JSONDecoder`: keys among id, op and the operation's own, each at most once; strings of
/// printable ASCII without escapes; an
/// id that is null, such a string, or an integer of at most 18 digits. Anything else (an escape,
/// a byte over 0x7F, another key, a float id) returns nil and takes the general path, so the
/// answers, errors included, are the same (ProtocolTests compares the two).
package enum GetRequestDecoder {
    package static func decode(_ line: [UInt8]) -> RequestLine? {
        line.withUnsafeBufferPointer { bytes -> RequestLine? in
            var position = 0
            func skipSpace() {
                while position < bytes.count {
                    switch bytes[position] {
                    case 0x20, 0x09, 0x0D, 0x0A: position += 1
                    default: return
                    }
                }
            }
            func expect(_ byte: UInt8) -> Bool {
                skipSpace()
                guard position < bytes.count, bytes[position] == byte else { return false }
                position += 1
                return true
            }
            /// Where a string of printable ASCII with no escapes lies in the line (its quotes
            /// left out); nil otherwise.
            func plainRange() -> Range<Int>? {
                guard expect(UInt8(ascii: "\"")) else { return nil }
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    guard (0x20...0x7E).contains(bytes[position]), bytes[position] != UInt8(ascii: "\\") else { return nil }
                    position += 1
                }
                guard position < bytes.count else { return nil }
                position += 1
                return start..<(position - 1)
            }
            func plainString() -> String? {
                plainRange().map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
            }
            /// Whether the bytes in `range` are `text` (keys and the op are compared as bytes,
            /// not made into strings first).
            func range(_ range: Range<Int>, is text: StaticString) -> Bool {
                range.count == text.utf8CodeUnitCount
                    && UnsafeBufferPointer(rebasing: bytes[range]).elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            }
            func plainID() -> RequestID? {
                skipSpace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: "\"") { return plainString().map(RequestID.string) }
                if bytes[position...].starts(with: "null".utf8) {
                    position += 4
                    return .null
                }
                let negative = bytes[position] == UInt8(ascii: "-")
                if negative { position += 1 }
                let digits = position
                // The value of the first 18 digits (which fits in an Int64 whichever they are);
                // more make the line the general path's.
                var value: Int64 = 0
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    if position - digits < 18 { value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0")) }
                    position += 1
                }
                let count = position - digits
                guard count > 0, count <= 18, count == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
                return .number(negative ? -value : value)
            }
            guard expect(UInt8(ascii: "{")) else { return nil }
            var id: RequestID??, op: Range<Int>?, service: String?, account: String?, remote: String?, path: String?, field: String?
            repeat {
                guard let key = plainRange(), expect(UInt8(ascii: ":")) else { return nil }
                if range(key, is: "id"), id == nil {
                    guard let value = plainID() else { return nil }
                    // A null id is an absent one, as decodeIfPresent reads it.
                    id = .some(value == .null ? nil : value)
                } else if range(key, is: "op"), op == nil {
                    guard let value = plainRange() else { return nil }
                    op = value
                } else if range(key, is: "service"), service == nil {
                    guard let value = plainString() else { return nil }
                    service = value
                } else if range(key, is: "account"), account == nil {
                    guard let value = plainString() else { return nil }
                    account = value
                } else if range(key, is: "remote"), remote == nil {
                    guard let value = plainString() else { return nil }
                    remote = value
                } else if range(key, is: "path"), path == nil {
                    guard let value = plainString() else { return nil }
                    path = value
                } else if range(key, is: "field"), field == nil {
                    guard let value = plainString() else { return nil }
                    field = value
                } else {
                    return nil
                }
            } while expect(UInt8(ascii: ","))
            guard expect(UInt8(ascii: "}")) else { return nil }
            skipSpace()
            guard position == bytes.count, let op else { return nil }
            if range(op, is: "get"), let service, let account, remote == nil, path == nil, field == nil {
                return RequestLine(id: id ?? nil, request: .get(ItemName(service: service, account: account)))
            }
            if range(op, is: "kv_get"), let remote, let path, service == nil, account == nil {
                return RequestLine(id: id ?? nil, request: .kvGet(KVRequest(remote: remote, path: path, field: field)))
            }
            return nil
        }
    }
}
