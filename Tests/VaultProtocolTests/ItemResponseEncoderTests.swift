import Testing
import VaultCore
@testable import VaultProtocol

/// The hot path for item responses writes exactly what the general JSONEncoder path writes, for
/// every kind of id, hostile text in every field, text and binary secrets; other responses are
/// left to the general path.
@Suite struct ItemResponseEncoderTests {
    static let texts = ["plain", "", "quote \" backslash \\ slash /", "new\nline\ttab\r\u{8}\u{C}", "\u{0}\u{1}\u{1F}\u{7F}",
                        "é ü ß 日本 🎉", "\u{2028}\u{2029}\u{FEFF}", "</script>", String(repeating: "x", count: 5000)]

    @Test func itemResponsesMatchTheGeneralEncoderByteForByte() throws {
        let ids: [RequestID] = [.null, .number(0), .number(-7), .number(Int64.max), .string(""), .string("a\"b\\c\n\u{1}é")]
        let secrets: [SecretBytes?] = [nil, SecretBytes(utf8: ""), SecretBytes(utf8: "s3cr\"et\n\\ é"), SecretBytes([0xFF, 0x00, 0x80, 0x41]), SecretBytes([0xC3])]
        var compared = 0
        for id in ids {
            for (index, text) in Self.texts.enumerated() {
                for secret in secrets {
                    for duplicates in [nil, 0, 3] {
                        var item = ItemBody(service: text, account: Self.texts[(index + 1) % Self.texts.count], label: Self.texts[(index + 2) % Self.texts.count],
                                            comment: Self.texts[(index + 3) % Self.texts.count], kind: "secret",
                                            created: "2026-11-30T12:04:05.123Z", modified: text, secret: secret)
                        item.duplicates = duplicates
                        let line = ResponseLine(id: id, .success(ResultBody(item: item)))
                        let fast = try #require(ItemResponseEncoder.encode(line))
                        #expect(fast == MessageCodec.encodedLine(line), "\(id) \(index)")
                        #expect(MessageCodec.encode(line) == fast)
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == 6 * Self.texts.count * 5 * 3)
    }

    @Test func remoteSecretsMatchTheGeneralEncoderByteForByte() throws {
        var compared = 0
        for age in [0, 0.5, 1.25, 59.999, 1e-7, 1e21, 12345678.9, 3, Double(Int64.max)] {
            for offline in [nil, true, false] {
                for (index, text) in Self.texts.enumerated() {
                    let item = ItemBody(service: "kv://team", account: text, label: "kv://team/" + text, comment: "", kind: "secret",
                                        created: "2026-12-05T10:00:00.123456Z", modified: "2026-12-05T10:00:01.000Z",
                                        secret: SecretBytes(utf8: Self.texts[(index + 1) % Self.texts.count]))
                    var result = ResultBody(item: item)
                    result.kv = KVBody(remote: "team", path: text, version: index + 1, created: Self.texts[(index + 2) % Self.texts.count], age: age, offline: offline)
                    let line = ResponseLine(id: .number(Int64(index)), .success(result))
                    let fast = try #require(ItemResponseEncoder.encode(line))
                    #expect(fast == MessageCodec.encodedLine(line), "\(age) \(index)")
                    compared += 1
                }
            }
        }
        #expect(compared == 9 * 3 * Self.texts.count)
        // kv beside anything else, or without an item, is the general path's.
        var withKeys = ResultBody(item: ItemBody(service: "s", account: "a", label: "", comment: "", kind: "secret", created: "", modified: ""))
        withKeys.kv = KVBody(remote: "r", path: "p", version: 1, created: "", age: 0)
        withKeys.keys = ["x"]
        var alone = ResultBody()
        alone.kv = KVBody(remote: "r", path: "p", version: 1, created: "", age: 0)
        for result in [withKeys, alone] {
            #expect(ItemResponseEncoder.encode(ResponseLine(id: nil, .success(result))) == nil)
        }
    }

    @Test func otherResponsesTakeTheGeneralPath() {
        let item = ItemBody(service: "s", account: "a", label: "l", comment: "", kind: "session", created: "c", modified: "m")
        var withSession = item
        withSession.session = SessionBody(provider: "oauth2", user: "u", expiresAt: nil, needsSignIn: false)
        var withAttributes = item
        withAttributes.attributes = ["k": "v"]
        var listing = ResultBody(item: item)
        listing.next = "1.cw==.YQ=="
        var withRules = ResultBody(item: item)
        withRules.rules = AccessRulesBody(service: "s", account: "a", confirm: false, allow: [])
        // Each of the other results' fields beside the item, the boxed ones among them.
        var beside = [withRules]
        for add: (inout ResultBody) -> Void in [
            { $0.message = "m" }, { $0.token = TokenBody(accessToken: "t", tokenType: "Bearer", expiresAt: nil, account: "a") },
            { $0.device = DeviceBody(userCode: "U") }, { $0.migration = MigrationBody(from: "a", to: "b", copied: 0, alreadyPresent: 0, removed: 0, conflicts: []) },
            { $0.doctor = DoctorBody(selected: "file", selectedReason: "r", selectedWorks: true, checks: []) }, { $0.audit = [] }, { $0.foreign = [] },
        ] {
            var result = ResultBody(item: item)
            add(&result)
            beside.append(result)
        }
        // (A page of plain items takes the fast path: ItemResponseDecoderTests.)
        for line in beside.map({ ResponseLine(id: nil, .success($0)) }) + [ResponseLine(id: nil, .success(ResultBody(item: withSession))), ResponseLine(id: nil, .success(ResultBody(item: withAttributes))),
                     ResponseLine(id: nil, .success(listing)), ResponseLine(id: nil, .success(ResultBody(items: [withSession]))),
                     ResponseLine(id: nil, .success(ResultBody(items: [withAttributes]))), ResponseLine(id: nil, .success(withRules)),
                     ResponseLine(id: nil, .failure(ErrorBody(.notFound, "no such item")))] {
            #expect(ItemResponseEncoder.encode(line) == nil)
            #expect(MessageCodec.encode(line) == MessageCodec.encodedLine(line))
        }
    }
}

/// SecretSplice's search for a placeholder (memchr and memcmp instead of `firstRange(of:)`).
@Suite struct SecretSpliceSearchTests {
    @Test func findsTheFirstWholeOccurrenceOnly() {
        let needle = Array("\"ab\"".utf8)
        for (text, expected) in [("\"ab\"", 0..<4), ("x\"a\"\"ab\"", 4..<8), ("\"a", nil), ("", nil), ("\"ab", nil), ("zz\"ab\"", 2..<6)] as [(String, Range<Int>?)] {
            #expect(SecretSplice.firstRange(of: needle, in: Array(text.utf8)) == expected, "\(text)")
        }
        #expect(SecretSplice.firstRange(of: [], in: [1, 2]) == nil)
    }
}

/// Timestamp's digit-buffer path for years 0 to 9999 and the general one beyond.
@Suite struct TimestampFormatTests {
    @Test func rfc3339AtTheEdges() {
        // A millisecond before the epoch is in 1969 (the fraction counts from the second below;
        // truncating division used to print 1970-01-01T00:00:00.999Z), and reads back as itself.
        #expect(Timestamp.rfc3339(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.milliseconds(rfc3339: "1969-12-31T23:59:59.999Z") == -1)
        // Any Int64 a file may hold formats without trapping (times near Int64.min once overflowed).
        for extreme in [Int64.min, .min + 1, .min + 191, .max, .max - 1] {
            #expect(!Timestamp.rfc3339(milliseconds: extreme).isEmpty)
            #expect(!Timestamp.rfc3339(microseconds: extreme).isEmpty)
        }
        #expect(Timestamp.rfc3339(milliseconds: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(milliseconds: 253_402_300_800_000) == "10000-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(milliseconds: -62_135_596_800_000) == "0001-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(milliseconds: 951_782_400_007) == "2000-02-29T00:00:00.007Z")
    }
}

/// The `get` fast path reads what JSONDecoder reads, and leaves everything else to it.
@Suite struct GetRequestDecoderTests {
    static func general(_ text: String) -> RequestLine? {
        var line = Array(text.utf8)
        return try? MessageCodec.decodeGenerally(RequestLine.self, from: &line)
    }

    static func name(_ line: RequestLine?) -> ItemName? {
        if case .get(let name)? = line?.request { return name }
        return nil
    }

    static func kv(_ line: RequestLine?) -> KVRequest? {
        if case .kvGet(let request)? = line?.request { return request }
        return nil
    }

    @Test func plainKVGetsTakeTheFastPathAndMatch() throws {
        let lines = [
            #"{"id":1,"op":"kv_get","remote":"team","path":"app/db","field":"password"}"#, #"{"op":"kv_get","path":"a%2Fb/c","remote":"r"}"#,
            #" { "field" : "" , "id":"x", "op":"kv_get" ,"remote":"r","path":"p" } "#,
        ]
        for text in lines {
            let fast = try #require(GetRequestDecoder.decode(Array(text.utf8)), "\(text)")
            let general = try #require(Self.general(text), "\(text)")
            #expect(fast.id == general.id && Self.kv(fast) == Self.kv(general) && Self.kv(fast) != nil, "\(text)")
        }
        for text in [#"{"op":"kv_get","remote":"r","path":"p","version":2}"#, #"{"op":"kv_get","remote":"r","path":"p","refresh":true}"#,
                     #"{"op":"kv_get","remote":"r"}"#, #"{"op":"kv_get","remote":"r","path":"p","service":"s"}"#,
                     #"{"op":"get","service":"s","account":"a","field":"f"}"#, #"{"op":"kv_put","remote":"r","path":"p","field":"f"}"#,
                     #"{"op":"kv_get","remote":"r","path":"p","field":"f","field":"g"}"#, #"{"op":"kv_get","remote":"r","path":"p\u0041"}"#] {
            #expect(GetRequestDecoder.decode(Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func plainGetsTakeTheFastPathAndMatch() throws {
        let lines = [
            #"{"id":1,"op":"get","service":"s","account":"a"}"#, #"{"op":"get","account":"a b/c","service":"svc"}"#,
            #" { "id" : "x-1" , "op":"get" ,"service":"s","account":"a" } "#, "{\t\"id\":null,\"op\":\"get\",\"service\":\"s\",\"account\":\"a\"}\r",
            #"{"id":-42,"op":"get","service":"s","account":"a"}"#, #"{"id":0,"op":"get","service":"","account":"a"}"#,
            #"{"id":"null","op":"get","service":"s","account":"a"}"#, #"{"id":999999999999999999,"op":"get","service":"s","account":"a"}"#,
            #"{"id":-999999999999999999,"op":"get","service":"s","account":"a"}"#, #"{"id":-0,"op":"get","service":"s","account":"a"}"#,
            #"{"id":"","op":"get","service":"id","account":"op"}"#,
        ]
        for text in lines {
            let fast = try #require(GetRequestDecoder.decode(Array(text.utf8)), "\(text)")
            let general = try #require(Self.general(text), "\(text)")
            #expect(fast.id == general.id && Self.name(fast) == Self.name(general) && Self.name(fast) != nil, "\(text)")
        }
    }

    /// Random lines from the pieces of a get (ids of every length and sign, keys spelt right and
    /// nearly, values of each kind, spaces): whatever the fast path reads, JSONDecoder reads the same.
    @Test func randomLinesReadTheSameOnBothPaths() throws {
        var generator = SystemRandomNumberGenerator()
        let keys = [#""id""#, #""op""#, #""service""#, #""account""#, #""ids""#, #""o""#, #""accoun""#, #""remote""#, #""path""#, #""field""#]
        let values = [#""get""#, #""kv_get""#, #""s""#, #""""#, "null", "true", "-", "-0", "0", "01", "1.5", #""g\u0065t""#]
        let spaces = ["", " ", "\t", "\r\n"]
        var fastOnes = 0
        for _ in 0..<3_000 {
            var pairs: [String] = []
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                var value = values.randomElement(using: &generator)!
                if Bool.random(using: &generator) {
                    let digits = (0..<Int.random(in: 1...22, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
                    value = (Bool.random(using: &generator) ? "-" : "") + digits
                }
                let space = spaces.randomElement(using: &generator)!
                pairs.append(space + keys.randomElement(using: &generator)! + space + ":" + space + value + space)
            }
            if Bool.random(using: &generator) { pairs += [#""op":"get""#, #""service":"s""#, #""account":"a""#].shuffled(using: &generator) }
            let text = "{" + pairs.shuffled(using: &generator).joined(separator: ",") + "}"
            guard let fast = GetRequestDecoder.decode(Array(text.utf8)) else { continue }
            fastOnes += 1
            let general = try #require(Self.general(text), "\(text)")
            #expect(fast.id == general.id && Self.name(fast) == Self.name(general) && Self.kv(fast) == Self.kv(general)
                    && (Self.name(fast) != nil || Self.kv(fast) != nil), "\(text)")
        }
        #expect(fastOnes > 0)
    }

    @Test func everythingElseTakesTheGeneralPath() {
        let lines = [
            #"{"id":1,"op":"get","service":"s\u0041","account":"a"}"#, #"{"op":"get","service":"é","account":"a"}"#,
            #"{"op":"get","service":"s","account":"a","extra":1}"#, #"{"op":"get","service":"s","service":"t","account":"a"}"#,
            #"{"id":1.5,"op":"get","service":"s","account":"a"}"#, #"{"id":1e3,"op":"get","service":"s","account":"a"}"#,
            #"{"id":01,"op":"get","service":"s","account":"a"}"#, #"{"id":1234567890123456789,"op":"get","service":"s","account":"a"}"#,
            #"{"op":"delete","service":"s","account":"a"}"#, #"{"op":"get","service":"s"}"#, #"{"op":"get","service":"s","account":"a"}x"#,
            #"{"op":"get","service":{"a":1},"account":"a"}"#, "{\"op\":\"get\",\"service\":\"s\u{1}\",\"account\":\"a\"}",
            #"{"op":"get","service":"s","account":"a",}"#, #"{"op":"get""service":"s","account":"a"}"#, #"{"op":"get","service":"s","account":"a""#,
            #"{"id":true,"op":"get","service":"s","account":"a"}"#, #"{"id":nul,"op":"get","service":"s","account":"a"}"#,
            #"{"op":"get","service":7,"account":"a"}"#, "", "{}", "[]", #"{"op":"get","service":"s","account":"a","secret":"x"}"#,
            #"{"op":"gets","service":"s","account":"a"}"#, #"{"op":"ge","service":"s","account":"a"}"#, #"{"op":"GET","service":"s","account":"a"}"#,
            #"{"op":"get","op":"get","service":"s","account":"a"}"#, #"{"ids":1,"op":"get","service":"s","account":"a"}"#,
            #"{"op":"get","service":"s","accoun":"a"}"#, #"{"id":-,"op":"get","service":"s","account":"a"}"#, #"{"op":7,"service":"s","account":"a"}"#,
            #"{"id":1,"id":2,"op":"get","service":"s","account":"a"}"#, #"{"id":99999999999999999999,"op":"get","service":"s","account":"a"}"#,
        ]
        for text in lines {
            #expect(GetRequestDecoder.decode(Array(text.utf8)) == nil, "\(text)")
        }
    }
}
