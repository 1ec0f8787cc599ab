import VaultCore

/// The hot path of `MessageCodec.decode` for the commonest line, a `get`:
/// `{"id":1,"op":"get","service":"…","account":"…"}` in any key order, with JSON whitespace.
/// It reads only the plainest form, where it cannot differ from `JSONDecoder`: keys among id,
/// op, service and account, each at most once; strings of printable ASCII without escapes; an
/// id that is null, such a string, or an integer of at most 18 digits. Anything else (an escape,
/// a byte over 0x7F, another key, a float id) returns nil and takes the general path, so the
/// answers, errors included, are the same (ProtocolTests compares the two).
enum GetRequestDecoder {
    static func decode(_ line: [UInt8]) -> RequestLine? {
        line.withUnsafeBufferPointer { bytes -> RequestLine? in
            var position = 0
            func skipSpace() {
                while position < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[position]) { position += 1 }
            }
            func expect(_ byte: UInt8) -> Bool {
                skipSpace()
                guard position < bytes.count, bytes[position] == byte else { return false }
                position += 1
                return true
            }
            /// A string of printable ASCII, no escapes; nil otherwise.
            func plainString() -> String? {
                guard expect(UInt8(ascii: "\"")) else { return nil }
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    guard (0x20...0x7E).contains(bytes[position]), bytes[position] != UInt8(ascii: "\\") else { return nil }
                    position += 1
                }
                guard position < bytes.count else { return nil }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            func plainID() -> RequestID? {
                skipSpace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: "\"") { return plainString().map(RequestID.string) }
                if bytes[position...].starts(with: "null".utf8) {
                    position += 4
                    return .null
                }
                let start = position
                if bytes[position] == UInt8(ascii: "-") { position += 1 }
                let digits = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
                let count = position - digits
                guard count > 0, count <= 18, count == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
                return Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)).map(RequestID.number)
            }
            guard expect(UInt8(ascii: "{")) else { return nil }
            var id: RequestID??, op: String?, service: String?, account: String?
            repeat {
                guard let key = plainString(), expect(UInt8(ascii: ":")) else { return nil }
                switch key {
                case "id" where id == nil:
                    guard let value = plainID() else { return nil }
                    // A null id is an absent one, as decodeIfPresent reads it.
                    id = .some(value == .null ? nil : value)
                case "op" where op == nil: op = plainString()
                case "service" where service == nil: service = plainString()
                case "account" where account == nil: account = plainString()
                default: return nil
                }
                guard op != nil || key != "op", service != nil || key != "service", account != nil || key != "account" else { return nil }
            } while expect(UInt8(ascii: ","))
            guard expect(UInt8(ascii: "}")) else { return nil }
            skipSpace()
            guard position == bytes.count, op == "get", let service, let account else { return nil }
            return RequestLine(id: id ?? nil, request: .get(ItemName(service: service, account: account)))
        }
    }
}
