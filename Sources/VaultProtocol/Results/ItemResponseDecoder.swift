import VaultCore

/// The client's hot path of `MessageCodec.decode` for the commonest answers, one plain item (what
/// `get` returns) and one page of plain items (`list`): exactly the forms `ItemResponseEncoder`
/// writes, `{"id":…,"ok":true,"result":{"item":{"account":…,"comment":…,"created":…,
/// ["duplicates":N,]"kind":…,"label":…,"modified":…,["secret":…|"secret_b64":…,]"service":…}}}`
/// (followed by `,"resolution":{"found":…}` for `resolve_credential`, or that alone)
/// or `…"result":{"items":[{…},…][,"next":…]}}` (items without a secret), keys in that order, no
/// whitespace. Strings are read by `JSONString` (RFC 8259, strictly), the secret straight into
/// `SecretBytes`. Anything else (another key or order, whitespace, an escape JSONString refuses,
/// a float, a secret in a listed item) returns nil and takes `JSONDecoder`'s path, so answers and
/// errors are the same (tests compare the two). `JSONDecoder` and the generic metadata it
/// instantiates were most of a whole-process `vaultctl get`'s own CPU time, and half of a
/// `vaultctl list`'s.
package enum ItemResponseDecoder {
    package static func decode(_ line: [UInt8]) -> ResponseLine? {
        line.withUnsafeBytes { bytes -> ResponseLine? in
            var reader = Reader(bytes: bytes)
            return reader.response()
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        /// Consumes `text` if the bytes at the position are exactly it.
        mutating func literal(_ text: StaticString) -> Bool {
            text.withUTF8Buffer { expected in
                guard position + expected.count <= bytes.count else { return false }
                for offset in 0..<expected.count where bytes[position + offset] != expected[offset] { return false }
                position += expected.count
                return true
            }
        }

        /// A JSON string at the position (its quotes consumed), decoded into `make`'s buffer.
        mutating func string<T>(_ make: (Int, (UnsafeMutableRawBufferPointer) -> Void) -> T) -> T? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            guard let (end, count) = try? JSONString.decode(bytes, from: position + 1) else { return nil }
            let start = position + 1
            let value = make(count) { output in _ = try? JSONString.decode(bytes, from: start, into: output) }
            position = end + 1
            return value
        }

        mutating func text() -> String? {
            string { count, fill in
                String(unsafeUninitializedCapacity: count) { buffer in
                    fill(UnsafeMutableRawBufferPointer(buffer))
                    return count
                }
            }
        }

        mutating func secret() -> SecretBytes? {
            string { count, fill in SecretBytes(count: count, fill) }
        }

        /// An integer of at most 18 digits, which fits in an Int64 whatever they are; a longer one
        /// (Int64.min has 19) returns nil and takes JSONDecoder's path, which reads it or refuses it.
        mutating func integer() -> Int64? {
            let start = position
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digits = position
            var value: Int64 = 0
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                if position - digits < 18 { value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0")) }
                position += 1
            }
            let count = position - digits
            guard count > 0, count <= 18, count == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
            return bytes[start] == UInt8(ascii: "-") ? -value : value
        }

        mutating func id() -> RequestID? {
            if literal("null") { return .null }
            if position < bytes.count, bytes[position] == UInt8(ascii: "\"") { return text().map(RequestID.string) }
            return integer().map(RequestID.number)
        }

        mutating func response() -> ResponseLine? {
            guard literal(#"{"id":"#), let id = id(), literal(#","ok":true,"result":{"#) else { return nil }
            var result: ResultBody
            if literal(#""item":"#) {
                guard let item = item(secrets: true) else { return nil }
                result = ResultBody(item: item)
                if literal(#","resolution":{"found":"#) {
                    guard let found = text(), literal("}") else { return nil }
                    result.resolution = ResolutionBody(found: found)
                }
            } else if literal(#""resolution":{"found":"#) {
                guard let found = text(), literal("}") else { return nil }
                result = ResultBody()
                result.resolution = ResolutionBody(found: found)
            } else if literal(#""items":["#) {
                var items: [ItemBody] = []
                if !literal("]") {
                    repeat {
                        guard let item = item(secrets: false) else { return nil }
                        items.append(item)
                    } while literal(",")
                    guard literal("]") else { return nil }
                }
                result = ResultBody(items: items)
                if literal(#","next":"#) {
                    guard let next = text() else { return nil }
                    result.next = next
                }
            } else {
                return nil
            }
            guard literal("}}"), position == bytes.count else { return nil }
            return ResponseLine(id: id, .success(result))
        }

        /// One item's object as `ItemResponseEncoder` writes it; with a secret only where `secrets`.
        mutating func item(secrets: Bool) -> ItemBody? {
            guard literal(#"{"account":"#), let account = text(), literal(#","comment":"#), let comment = text(),
                  literal(#","created":"#), let created = text() else { return nil }
            var duplicates: Int?
            if literal(#","duplicates":"#) {
                guard let count = integer(), count > 0 else { return nil }
                duplicates = Int(count)
            }
            guard literal(#","kind":"#), let kind = text(), literal(#","label":"#), let label = text(),
                  literal(#","modified":"#), let modified = text() else { return nil }
            var secret: SecretBytes?
            if secrets, literal(#","secret":"#) {
                guard let text = self.secret() else { return nil }
                secret = text
            } else if secrets, literal(#","secret_b64":"#) {
                guard let encoded = self.secret(), let decoded = Base64Bytes.decode(encoded) else { return nil }
                secret = decoded
            }
            guard literal(#","service":"#), let service = text(), literal("}") else { return nil }
            var item = ItemBody(service: service, account: account, label: label, comment: comment, kind: kind,
                                created: created, modified: modified, secret: secret)
            item.duplicates = duplicates
            return item
        }
    }
}
