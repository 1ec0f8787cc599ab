import Foundation
import Testing
import VaultCore
@testable import VaultProtocol

/// The client's hot paths: a `get` line written by GetRequestEncoder is byte for byte the general
/// encoder's, and an item answer or a list page read by ItemResponseDecoder is the general
/// decoder's reading of it (list pages written by ItemResponseEncoder byte for byte as the
/// general encoder writes them), over hostile text in every field, every kind of id and binary
/// secrets; any line of another shape, damaged or not, is left to the general path.
@Suite struct ItemResponseDecoderTests {
    typealias Encoding = ItemResponseEncoderTests

    static func general(_ line: [UInt8]) -> ResponseLine? {
        var copy = line
        return try? MessageCodec.decodeGenerally(ResponseLine.self, from: &copy)
    }

    static func item(_ line: ResponseLine?) -> ItemBody? {
        if case .success(let result)? = line?.response { return result.item }
        return nil
    }

    @Test func itemAnswersTakeTheFastPathAndMatchTheGeneralDecoder() throws {
        let ids: [RequestID] = [.null, .number(0), .number(-7), .number(999_999_999_999_999_999), .string(""), .string("a\"b\\c\n\u{1}é")]
        let secrets: [SecretBytes?] = [nil, SecretBytes(utf8: ""), SecretBytes(utf8: "s3cr\"et\n\\ é /"), SecretBytes([0xFF, 0x00, 0x80, 0x41]), SecretBytes([0xC3])]
        var compared = 0
        for id in ids {
            for (index, text) in Encoding.texts.enumerated() {
                for secret in secrets {
                    for duplicates in [nil, 3] {
                        var item = ItemBody(service: text, account: Encoding.texts[(index + 1) % Encoding.texts.count],
                                            label: Encoding.texts[(index + 2) % Encoding.texts.count], comment: Encoding.texts[(index + 3) % Encoding.texts.count],
                                            kind: "secret", created: "2026-11-30T12:04:05.123Z", modified: text, secret: secret)
                        item.duplicates = duplicates
                        var line = MessageCodec.encode(ResponseLine(id: id, .success(ResultBody(item: item))))
                        line.removeLast()
                        let fast = try #require(ItemResponseDecoder.decode(line), "\(id) \(index)")
                        let general = try #require(Self.general(line))
                        #expect(fast.id == general.id && fast.id == id)
                        #expect(Self.item(fast) == Self.item(general) && Self.item(fast) == item)
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == 6 * Encoding.texts.count * 5 * 2)
    }

    @Test func everythingElseTakesTheGeneralPath() {
        let plain = #"{"id":1,"ok":true,"result":{"item":{"account":"a","comment":"","created":"c","kind":"secret","label":"l","modified":"m","secret":"x","service":"s"}}}"#
        #expect(ItemResponseDecoder.decode(Array(plain.utf8)) != nil)
        func with(_ old: String, _ new: String) -> String { plain.replacingOccurrences(of: old, with: new) }
        let lines: [String] = [
            with(#""ok":true"#, #""ok":false"#),
            with(#"{"item""#, #"{ "item""#),
            with(#""secret":"x""#, #""secret":"x","secret_b64":"eA==""#),
            with(#""secret":"x""#, #""secret_b64":"e""#),
            with(#""secret":"x""#, #""secret":"\ud800""#),
            with(#""secret":"x""#, "\"secret\":\"\u{1}\""),
            with(#""label":"l""#, #""label":7"#),
            with(#""modified":"m","#, #""modified":"m","session":null,"#),
            with(#""kind":"secret""#, #""duplicates":0,"kind":"secret""#),
            with(#""kind":"secret""#, #""duplicates":1.5,"kind":"secret""#),
            with(#""id":1"#, #""id":1.0"#),
            with(#""id":1"#, #""id":01"#),
            with(#""id":1"#, #""id":1234567890123456789"#),
            with(#""id":1"#, #""id":true"#),
            with(#""service":"s""#, #""service":"s","extra":1"#),
            plain + " ", plain + "x", String(plain.dropLast()), "", "{}",
            #"{"error":{"code":"not_found","message":"m"},"id":1,"ok":false}"#,
        ]
        for text in lines {
            #expect(ItemResponseDecoder.decode(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// vaultd echoes any id a request carried, Int64.min included: a client reading a long id, in
    /// the id or in `duplicates`, reads it or refuses the line, and never traps on it.
    @Test func longIntegersNeverTrapTheClient() throws {
        let plain = #"{"id":1,"ok":true,"result":{"item":{"account":"a","comment":"","created":"c","kind":"secret","label":"l","modified":"m","secret":"x","service":"s"}}}"#
        for (id, expected) in [("-9223372036854775808", RequestID.number(Int64.min)), ("9223372036854775807", .number(Int64.max)),
                               ("-999999999999999999", .number(-999_999_999_999_999_999))] {
            var line = Array(plain.replacingOccurrences(of: #""id":1"#, with: #""id":\#(id)"#).utf8)
            let decoded = try MessageCodec.decode(ResponseLine.self, from: &line)
            #expect(decoded.id == expected)
        }
        for long in ["9999999999999999999", "-9999999999999999999", "9223372036854775808", String(repeating: "9", count: 40), "-" + String(repeating: "8", count: 25)] {
            for field in [#""id":1"#, #""kind":"secret""#] {
                let value = field == #""id":1"# ? #""id":\#(long)"# : #""duplicates":\#(long),"kind":"secret""#
                let text = plain.replacingOccurrences(of: field, with: value)
                #expect(ItemResponseDecoder.decode(Array(text.utf8)) == nil, "\(text)")
                var line = Array(text.utf8)
                #expect(throws: (any Error).self) { try MessageCodec.decode(ResponseLine.self, from: &line) }
            }
        }
    }

    @Test func getLinesMatchTheGeneralEncoderByteForByte() throws {
        for id: RequestID? in [nil, .null, .number(0), .number(Int64.min), .string(""), .string("a\"b\\c\n\u{1}é /")] {
            for text in Encoding.texts {
                let line = RequestLine(id: id, request: .get(ItemName(service: text, account: String(text.reversed()))))
                let fast = try #require(GetRequestEncoder.encode(line))
                #expect(fast == MessageCodec.encodedLine(line), "\(String(describing: id))")
                #expect(MessageCodec.requestLine(line) == fast)
            }
        }
        #expect(GetRequestEncoder.encode(RequestLine(id: .number(1), request: .delete(ItemName(service: "s", account: "a")))) == nil)
    }

    @Test func listPagesMatchTheGeneralCodecBothWays() throws {
        let texts = Encoding.texts
        var compared = 0
        for id: RequestID in [.null, .number(3), .string("p\"1")] {
            for count in [0, 1, 2, texts.count] {
                for next: String? in [nil, "", "dGhlIGtleQ==", "a\"b/\u{1}é"] {
                    let items = (0..<count).map { index in
                        var item = ItemBody(service: texts[index % texts.count], account: texts[(index + 1) % texts.count],
                                            label: texts[(index + 2) % texts.count], comment: texts[(index + 3) % texts.count],
                                            kind: index % 2 == 0 ? "secret" : "session", created: "2026-11-30T12:04:05.123Z", modified: texts[index % texts.count])
                        item.duplicates = index % 3 == 0 ? nil : index % 3
                        return item
                    }
                    var result = ResultBody(items: items)
                    result.next = next
                    let response = ResponseLine(id: id, .success(result))
                    let fast = try #require(ItemResponseEncoder.encode(response))
                    #expect(fast == MessageCodec.encodedLine(response))
                    var line = fast
                    line.removeLast()
                    let read = try #require(ItemResponseDecoder.decode(line), "\(count) \(String(describing: next))")
                    let general = try #require(Self.general(line))
                    guard case .success(let fastResult) = read.response, case .success(let generalResult) = general.response else {
                        Issue.record("not a result")
                        continue
                    }
                    #expect(read.id == id && general.id == id)
                    #expect(fastResult.items == items && generalResult.items == items)
                    #expect(fastResult.next == next && generalResult.next == next)
                    compared += 1
                }
            }
        }
        #expect(compared == 3 * 4 * 4)
    }

    @Test func listPagesOfAnotherShapeTakeTheGeneralPath() throws {
        var withSecret = ItemBody(service: "s", account: "a", label: "", comment: "", kind: "secret", created: "c", modified: "m")
        withSecret.secret = SecretBytes(utf8: "x")
        #expect(ItemResponseEncoder.encode(ResponseLine(id: .null, .success(ResultBody(items: [withSecret])))) == nil)
        var withUnaddressable = ResultBody(items: [])
        withUnaddressable.unaddressable = []
        #expect(ItemResponseEncoder.encode(ResponseLine(id: .null, .success(withUnaddressable))) == nil)
        let page = #"{"id":1,"ok":true,"result":{"items":[{"account":"a","comment":"","created":"c","kind":"secret","label":"l","modified":"m","service":"s"}],"next":"n"}}"#
        #expect(ItemResponseDecoder.decode(Array(page.utf8)) != nil)
        let lines: [String] = [
            page.replacingOccurrences(of: #""label":"l","#, with: #""label":"l","secret":"x","#),
            page.replacingOccurrences(of: #""next":"n""#, with: #""next":null"#),
            page.replacingOccurrences(of: #""next":"n""#, with: #""next":"n","unaddressable":[]"#),
            page.replacingOccurrences(of: "}],", with: "},],"),
            page.replacingOccurrences(of: "[{", with: "[ {"),
            page.replacingOccurrences(of: #""items":["#, with: #""items":[1,"#),
            #"{"id":1,"ok":true,"result":{"items":[]"#,
            #"{"id":1,"ok":true,"result":{"items":[]}}}"#,
            #"{"id":1,"ok":true,"result":{"item":null}}"#,
        ]
        for text in lines {
            #expect(ItemResponseDecoder.decode(Array(text.utf8)) == nil, "\(text)")
        }
        // The general path still refuses a secret in a listed item.
        var line = Array(lines[0].utf8)
        #expect(throws: VaultError.self) { try MessageCodec.decode(ResponseLine.self, from: &line) }
    }
}
