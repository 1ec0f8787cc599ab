import Testing
import VaultCore
@testable import VaultProtocol

/// `resolve_credential` on the hot paths: its request line is byte for byte what the general
/// encoder writes, and its answers that say only what was found (an item, or none) are written
/// and read as the general encoder and decoder write and read them; every other answer takes
/// the general path.
@Suite struct CredentialFastPathTests {
    typealias Encoding = ItemResponseEncoderTests
    static let ids: [RequestID?] = [nil, .null, .number(0), .number(Int64.min), .string(""), .string("a\"b\\c\n\u{1}é /")]

    @Test func requestLinesMatchTheGeneralEncoderByteForByte() throws {
        let attributeSets: [[String: String?]?] = [
            nil, [:], ["protocol": "https", "server": "h.example", "port": nil, "object": nil],
            ["protocol": "https", "server": "h.example", "port": "8443", "object": "team/repo.git", "user": "alice"],
            ["label": "Docker Credentials", "server": "https://r.example/v2/", "username": "u", "docker_cli": "1"],
        ]
        var compared = 0
        for id in Self.ids {
            for (index, text) in Encoding.texts.enumerated() {
                for attributes in attributeSets {
                    for (account, session) in [(nil, nil), (text, nil), (nil, "forge"), (text, text)] as [(String?, String?)] {
                        let other = Encoding.texts[(index + 1) % Encoding.texts.count]
                        var values = attributes
                        if values?["server"] != nil { values?["server"] = .some(other) }
                        let request = CredentialRequest(
                            helper: index % 2 == 0 ? "git" : "docker", service: text, account: account, attributes: values,
                            sessionService: session, sessionAccount: session.map { _ in other })
                        let line = RequestLine(id: id, request: .resolveCredential(request))
                        let fast = try #require(CredentialRequestEncoder.encode(line))
                        #expect(fast == MessageCodec.encodedLine(line), "\(String(describing: id)) \(index)")
                        #expect(MessageCodec.requestLine(line) == fast)
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == Self.ids.count * Encoding.texts.count * 5 * 4)
        let unknown = RequestLine(id: .number(1), request: .resolveCredential(CredentialRequest(helper: "git", service: "s", attributes: ["Server": "x"])))
        #expect(CredentialRequestEncoder.encode(unknown) == nil && MessageCodec.requestLine(unknown) != nil)
        #expect(CredentialRequestEncoder.encode(RequestLine(id: .number(1), request: .get(ItemName(service: "s", account: "a")))) == nil)
    }

    @Test func answersOfAnItemOrNoneTakeTheFastPathsBothWays() throws {
        let secrets: [SecretBytes?] = [SecretBytes(utf8: "s3cr\"et\n\\ é"), SecretBytes([0xFF, 0x00, 0x80, 0x41])]
        // Int64.min has 19 digits, which the fast decoder leaves to the general one.
        for case let id? in Self.ids where id != .number(Int64.min) {
            for (index, text) in Encoding.texts.enumerated() {
                for secret in secrets {
                    let item = ItemBody(service: text, account: Encoding.texts[(index + 1) % Encoding.texts.count], label: text, comment: "",
                                        kind: "secret", created: "2026-11-30T12:04:05.123Z", modified: text, secret: secret)
                    for (found, withItem) in [("item", true), ("none", false), (text, true), (text, false)] {
                        var result = ResultBody(item: withItem ? item : nil)
                        result.resolution = ResolutionBody(found: found)
                        let line = ResponseLine(id: id, .success(result))
                        let fast = try #require(ItemResponseEncoder.encode(line), "\(id) \(index)")
                        #expect(fast == MessageCodec.encodedLine(line), "\(id) \(index) \(found)")
                        let read = try #require(ItemResponseDecoder.decode(Array(fast.dropLast())), "\(id) \(index) \(found)")
                        let general = try #require(ItemResponseDecoderTests.general(Array(fast.dropLast())))
                        #expect(MessageCodec.encodedLine(read) == MessageCodec.encodedLine(general) && MessageCodec.encodedLine(read) == fast)
                        guard case .success(let decoded) = read.response else { Issue.record("not a success"); continue }
                        #expect(decoded.resolution == ResolutionBody(found: found) && decoded.item == result.item)
                    }
                }
            }
        }
    }

    @Test func otherAnswersTakeTheGeneralPath() throws {
        let item = ItemBody(service: "s", account: "a", label: "l", comment: "", kind: "secret", created: "c", modified: "m", secret: SecretBytes(utf8: "x"))
        var ambiguous = ResultBody()
        ambiguous.resolution = ResolutionBody(found: "ambiguous", among: "item", count: 2)
        var foreign = ResultBody(item: item)
        foreign.item?.attributes = ["server": "h"]
        foreign.resolution = ResolutionBody(found: "foreign")
        var token = ResultBody(token: TokenBody(accessToken: "t", tokenType: "Bearer", expiresAt: nil, account: "a"))
        token.resolution = ResolutionBody(found: "token")
        for result in [ambiguous, foreign, token] {
            let line = ResponseLine(id: .number(1), .success(result))
            #expect(ItemResponseEncoder.encode(line) == nil)
            var written = MessageCodec.encode(line)
            written.removeLast()
            #expect(ItemResponseDecoder.decode(written) == nil, "\(String(decoding: written, as: UTF8.self))")
            #expect(ItemResponseDecoderTests.general(written) != nil)
        }
        let plain = #"{"id":1,"ok":true,"result":{"resolution":{"found":"none"}}}"#
        #expect(ItemResponseDecoder.decode(Array(plain.utf8)) != nil)
        for text in [plain.replacingOccurrences(of: #""found":"none"}"#, with: #""found":"none","count":2}"#),
                     plain.replacingOccurrences(of: #""found":"none""#, with: #""found":7"#),
                     plain.replacingOccurrences(of: "}}}", with: "}}"), plain + " "] {
            #expect(ItemResponseDecoder.decode(Array(text.utf8)) == nil, "\(text)")
        }
    }
}
