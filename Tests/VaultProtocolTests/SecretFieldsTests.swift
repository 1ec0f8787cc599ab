import Foundation
import Testing
import VaultCore
import VaultProtocol

/// The secret fields are read from the line itself into SecretBytes, and blanked there before
/// JSONDecoder sees the rest: every JSON string form, every way to get it wrong, and that only
/// the documented object is searched.
@Suite struct SecretFieldsTests {
    let keys: Set<String> = ["secret", "secret_b64", "passphrase"]

    func extract(_ json: String, path: [String] = []) throws -> (fields: SecretFields, line: String) {
        var line = Array(json.utf8)
        let fields = try SecretFields.extract(from: &line, path: path, keys: keys)
        return (fields, String(decoding: line, as: UTF8.self))
    }

    func secret(_ json: String) throws -> [UInt8]? {
        try extract(json).fields.string("secret")?.unprotectedBytes
    }

    @Test func everyEscapeFormDecodesToItsBytes() throws {
        #expect(try secret(#"{"secret":"a\"b\\c\/d\be\ff\ng\rh\ti"}"#) == Array("a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti".utf8))
        #expect(try secret(#"{"secret":"\u0041\u00e9\u20AC\ud83d\ude00"}"#) == Array("Aé€😀".utf8))
        #expect(try secret(#"{"secret":"\u0000x"}"#) == [0, 0x78])
        #expect(try secret(#"{"secret":"pässwörd 😀"}"#) == Array("pässwörd 😀".utf8))
        #expect(try secret(#"{"secret":""}"#) == [])
        // A key spelled with an escape is the same key, as it is to JSONDecoder.
        #expect(try secret(#"{"sec\u0072et":"hidden"}"#) == Array("hidden".utf8))
    }

    @Test func badStringsAreRefusedAndStillBlanked() {
        let bad = [
            #"{"secret":"\ud800"}"#, #"{"secret":"\udc00x"}"#, #"{"secret":"\ud800\u0041"}"#, #"{"secret":"\x"}"#,
            #"{"secret":"\u12G4"}"#, "{\"secret\":\"a\u{1}b\"}",
        ]
        var lines = bad.map { Array($0.utf8) }
        // Malformed UTF-8: a stray continuation, an overlong NUL, an encoded surrogate, a truncated sequence.
        for raw: [UInt8] in [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82]] {
            lines.append(Array(#"{"id":3,"secret":"canary"#.utf8) + raw + Array(#""}"#.utf8))
        }
        for var line in lines {
            #expect {
                try SecretFields.extract(from: &line, keys: keys)
            } throws: {
                "\($0)" == "field 'secret' is not a valid JSON string (a bad escape, a lone surrogate, a control character or malformed UTF-8)"
            }
            #expect(!String(decoding: line, as: UTF8.self).contains("canary"))
            #expect(String(decoding: line, as: UTF8.self).hasPrefix(#"{""#))
        }
        // The id is still readable from the blanked line, so the error can echo it.
        var line = Array(#"{"id":3,"secret":"canary\x"}"#.utf8)
        _ = try? SecretFields.extract(from: &line, keys: keys)
        #expect((try? MessageCodec.decode(RequestEnvelope.self, from: line))?.id == .number(3))
    }

    @Test func aBrokenLineIsWipedWhole() {
        for json in [#"{"secret":"canary"#, #"{"id":1 "secret":"canary"}"#, #"{"secret":"canary","#, #"{"a":,"secret":"canary"}"#] {
            var line = Array(json.utf8)
            #expect { try SecretFields.extract(from: &line, keys: keys) } throws: { "\($0)".hasPrefix("malformed JSON") }
            #expect(line.allSatisfy { $0 == 0 })
        }
    }

    @Test func onlyTheTopLevelObjectIsSearched() throws {
        let json = #"{"extra":{"secret":"nested"},"list":[{"secret":"inlist"},"secret"],"secret":"top","x":"\"secret\":\"q\""}"#
        let (fields, line) = try extract(json)
        #expect(try fields.string("secret")?.unprotectedBytes == Array("top".utf8))
        #expect(line.contains("nested") && line.contains("inlist") && !line.contains("top"))
        #expect(line.count == json.utf8.count)
        // A response's secret sits in result.item: searched there and nowhere else.
        let response = #"{"id":1,"ok":true,"result":{"items":[{"secret":"no"}],"item":{"secret":"yes","session":{"secret":"no"}}}}"#
        let nested = try extract(response, path: ["result", "item"])
        #expect(try nested.fields.string("secret")?.unprotectedBytes == Array("yes".utf8))
        #expect(nested.line.components(separatedBy: "\"no\"").count == 3 && !nested.line.contains("yes"))
    }

    /// Malformed UTF-8 or a raw control byte anywhere in a line is an error (protocol.md), also in
    /// a field no payload reads, which JSONDecoder alone would never look inside.
    @Test func malformedTextInAFieldNobodyReadsIsRefused() throws {
        for junk in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x00], [0x01], [0x1B]] as [[UInt8]] {
            var line = Array(#"{"id":1,"op":"status","junk":""#.utf8) + junk + Array(#""}"#.utf8)
            #expect(throws: VaultError.self, "\(junk)") { try MessageCodec.decode(RequestLine.self, from: &line) }
        }
        var fine = Array(#"{"id":1,"op":"status","junk":"ünï\u0001\t"}"#.utf8)
        #expect(try MessageCodec.decode(RequestLine.self, from: &fine).id == .number(1))
    }

    /// A line that is not one JSON object is refused here and wiped whole, before JSONDecoder
    /// (which refuses it too) could copy the secrets in it; a secret that is not a string is
    /// blanked as well.
    @Test func aLineThatIsNotOneObjectIsWipedAndRefused() throws {
        let lines = [
            #"[{"op":"add","service":"s","account":"a","secret":"hunter2"}]"#,
            #"{"op":"set","service":"s","account":"a","secret":"p"}{"secret":"hunter2"}"#,
            #"{"op":"set","secret":"p"} "hunter2""#,
            #""hunter2""#,
        ]
        for text in lines {
            var line = Array(text.utf8)
            #expect(throws: VaultError.self, "\(text)") { try SecretFields.extract(from: &line, keys: keys) }
            #expect(line.allSatisfy { $0 == 0 }, "\(text)")
        }
        for text in [#"{"op":"add","secret":{"v":"hunter2"}}"#, #"{"op":"add","secret":[104,117,110,116]}"#, #"{"secret":7}"#] {
            var line = Array(text.utf8)
            let fields = try SecretFields.extract(from: &line, keys: keys)
            #expect { try fields.string("secret") } throws: { "\($0)" == "field 'secret' must be a string" }
            let blanked = String(decoding: line, as: UTF8.self)
            #expect(!blanked.contains("hunter2") && !blanked.contains("104") && line.count == text.utf8.count, "\(blanked)")
            #expect((try? JSONSerialization.jsonObject(with: Data(line))) != nil, "still JSON: \(blanked)")
        }
        // Whitespace after the object is not more data.
        var spaced = Array(#" {"secret":"x"} "#.utf8) + [0x0D]
        #expect(try SecretFields.extract(from: &spaced, keys: keys).string("secret")?.unprotectedBytes == Array("x".utf8))
    }

    @Test func typesNullsAndDuplicates() throws {
        #expect { try extract(#"{"secret":5}"#).fields.string("secret") } throws: { "\($0)" == "field 'secret' must be a string" }
        #expect { try extract(#"{"secret":{"a":"b"}}"#).fields.string("secret") } throws: { "\($0)" == "field 'secret' must be a string" }
        #expect(try extract(#"{"secret":null}"#).fields.string("secret") == nil)
        #expect(try extract(#"{"other":"x"}"#).fields.string("secret") == nil)
        var line = Array(#"{"secret":"one","secret":"two"}"#.utf8)
        #expect { try SecretFields.extract(from: &line, keys: keys) } throws: { "\($0)" == "field 'secret' appears more than once; give it once" }
        let text = String(decoding: line, as: UTF8.self)
        #expect(!text.contains("one") && !text.contains("two"))
    }

    @Test func hugeValuesAndDeepNesting() throws {
        let big = String(repeating: "x\\n", count: 80_000)
        #expect(try secret(#"{"secret":""# + big + #""}"#)?.count == 160_000)
        // Nesting deeper than any stack: skipped without recursion.
        let deep = #"{"a":"# + String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000) + #","secret":"s"}"#
        #expect(try secret(deep) == [0x73])
    }

    @Test func theBlankedLineDecodesToTheSameRequest() throws {
        let json = #"{"id":"r1","op":"set","service":"svc","account":"acc","secret":"s\u00e9qz\"et","label":"L","comment":"C"}"#
        var line = Array(json.utf8)
        let decoded = try MessageCodec.decode(RequestLine.self, from: &line)
        guard case .set(let write) = decoded.request else { Issue.record("not a set"); return }
        #expect(decoded.id == .string("r1"))
        #expect(write.service == "svc" && write.account == "acc" && write.label == "L" && write.comment == "C")
        #expect(write.secret == SecretBytes(utf8: "séqz\"et"))
        let blanked = String(decoding: line, as: UTF8.self)
        #expect(!blanked.contains("qz") && blanked.contains(#""secret":""         "#))
        #expect(try JSONSerialization.jsonObject(with: Data(line)) is [String: Any])
        // Every secret a request carries goes the same way.
        var unlock = Array(#"{"op":"change_passphrase","passphrase":"old canary","new_passphrase":"new canary"}"#.utf8)
        guard case .changePassphrase(let change) = try MessageCodec.decode(RequestLine.self, from: &unlock).request else { return }
        #expect(change.current == SecretBytes(utf8: "old canary") && change.new == SecretBytes(utf8: "new canary"))
        #expect(!String(decoding: unlock, as: UTF8.self).contains("canary"))
        var login = Array(#"{"op":"login","provider":"oauth2","token_endpoint":"https://t","username":"u","password":"pw-canary"}"#.utf8)
        _ = try MessageCodec.decode(RequestLine.self, from: &login)
        #expect(!String(decoding: login, as: UTF8.self).contains("canary"))
    }

    @Test func payloadsKeepTheirMessagesForBadFields() {
        func decode(_ json: String) throws -> RequestLine { try MessageCodec.decode(RequestLine.self, from: Array(json.utf8)) }
        #expect { try decode(#"{"op":"set","service":"s","account":"a","secret":7}"#) } throws: { "\($0)" == "field 'secret' must be a string" }
        #expect { try decode(#"{"op":"set","service":"s","account":"a","secret_b64":true}"#) } throws: { "\($0)" == "field 'secret_b64' must be a string" }
        #expect { try decode(#"{"op":"set","service":"s","account":"a","secret_b64":"e A=="}"#) } throws: { "\($0)" == "secret_b64 is not valid base64" }
        #expect { try decode(#"{"op":"set","service":"s","account":"a","secret":null}"#) } throws: { "\($0)" == "missing field 'secret' (or 'secret_b64')" }
        #expect { try decode(#"{"op":"unlock","passphrase":1}"#) } throws: { "\($0)" == "field 'passphrase' must be a string" }
        #expect { try decode(#"{"op":"login","provider":"oauth2","token_endpoint":"t","username":"u","password":""}"#) } throws: {
            "\($0)" == "missing field 'password'"
        }
        #expect { try decode(#"{"op":"import_session","service":"s","account":"a"}"#) } throws: { "\($0)".contains("needs 'session'") }
        guard case .set(let write) = try? decode(#"{"op":"set","service":"s","account":"a","secret_b64":"/wDD"}"#).request else {
            Issue.record("secret_b64 not read")
            return
        }
        #expect(write.secret == SecretBytes([0xff, 0x00, 0xc3]))
    }

    @Test func splicedSecretsAreEscapedExactlyAsJSONEncoderDoes() throws {
        struct Plain: Encodable { var passphrase: String }
        var text = "\u{0}\u{1}\u{8}\u{c}\n\r\t\"\\/\u{7f}\u{1f}\u{2028}é😀 ordinary"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try encoder.encode(Plain(passphrase: text)), as: UTF8.self)
        let spliced = MessageCodec.encode(RequestLine(id: nil, request: .unlock(UnlockRequest(passphrase: SecretBytes(utf8: text)))))
        #expect(String(decoding: spliced, as: UTF8.self) == #"{"op":"unlock","# + expected.dropFirst() + "\n")
        // And back: the decoder reads what the encoder wrote.
        var line = Array(spliced.dropLast())
        guard case .unlock(let unlock) = try MessageCodec.decode(RequestLine.self, from: &line).request else { return }
        #expect(unlock.passphrase == SecretBytes(utf8: text))
        // Text that is not UTF-8 becomes U+FFFD, as String(decoding:) makes it.
        let invalid: [UInt8] = [0x61, 0xff, 0xe2, 0x82, 0x62]
        text = String(decoding: invalid, as: UTF8.self)
        let replaced = MessageCodec.encode(RequestLine(id: nil, request: .unlock(UnlockRequest(passphrase: SecretBytes(invalid)))))
        #expect(String(decoding: replaced, as: UTF8.self) == #"{"op":"unlock","passphrase":""# + text + "\"}\n")
        // A field that imitates a placeholder is not mistaken for one.
        let write = ItemWrite(service: "vault-secret-0-0-0-0-0", account: "a", secret: SecretBytes(utf8: "real"))
        #expect(String(decoding: MessageCodec.encode(RequestLine(id: nil, request: .set(write))), as: UTF8.self)
            == #"{"account":"a","op":"set","secret":"real","service":"vault-secret-0-0-0-0-0"}"# + "\n")
    }
}
