import Testing
import VaultCore
@testable import VaultProtocol
#if canImport(Glibc)
import Glibc
#endif

@Suite struct MessageCodecTests {
    @Test func decodeErrorsNameTheField() {
        #expect { try MessageCodec.decode(RequestLine.self, from: Array(#"{"op":"get","service":3}"#.utf8)) } throws: {
            "\($0)".contains("field 'service' must be a string")
        }
        #expect { try MessageCodec.decode(RequestLine.self, from: Array(#"{"id":1}"#.utf8)) } throws: {
            "\($0)".contains("missing field 'op'")
        }
        #expect { try MessageCodec.decode(RequestLine.self, from: Array("nope".utf8)) } throws: {
            "\($0)".contains("malformed JSON")
        }
    }

    @Test func responsesEncodeAsOneLineWithTheDocumentedShape() throws {
        let line = MessageCodec.encode(ResponseLine(id: .number(7), .failure(ErrorBody(code: "not_found", message: "no item"))))
        #expect(line.last == 10)
        #expect(line.dropLast().contains(10) == false)
        #expect(String(decoding: line, as: UTF8.self) == #"{"error":{"code":"not_found","message":"no item"},"id":7,"ok":false}"# + "\n")
        let success = String(decoding: MessageCodec.encode(ResponseLine(id: .string("a"), .success(ResultBody()))), as: UTF8.self)
        #expect(success == #"{"id":"a","ok":true,"result":{}}"# + "\n")
    }

    @Test func idsRoundTripAsStringsNumbersOrNull() throws {
        for (json, id) in [(#"{"id":"x","op":"status"}"#, RequestID.string("x")), (#"{"id":42,"op":"status"}"#, .number(42))] {
            #expect(try MessageCodec.decode(RequestLine.self, from: Array(json.utf8)).id == id)
        }
        // Absent and null ids are the same: the response carries "id":null.
        #expect(try MessageCodec.decode(RequestLine.self, from: Array(#"{"id":null,"op":"status"}"#.utf8)).id == nil)
        #expect(try MessageCodec.decode(RequestLine.self, from: Array(#"{"op":"status"}"#.utf8)).id == nil)
        #expect(String(decoding: MessageCodec.encode(ResponseLine(id: nil, .success(ResultBody()))), as: UTF8.self).contains(#""id":null"#))
        #expect(throws: VaultError.self) { try MessageCodec.decode(RequestLine.self, from: Array(#"{"id":[1],"op":"status"}"#.utf8)) }
    }
}

@Suite struct WireSecretTests {
    @Test func textTravelsAsTextAndBytesAsBase64() throws {
        func line(_ secret: SecretBytes) -> String {
            let body = ItemBody(service: "s", account: "a", label: "", comment: "", kind: "secret", created: "c", modified: "m", secret: secret)
            return String(decoding: MessageCodec.encode(ResponseLine(id: .number(1), .success(ResultBody(item: body)))), as: UTF8.self)
        }
        #expect(line(SecretBytes(utf8: "pässword")).contains(#""secret":"pässword""#))
        let binary = SecretBytes([0xff, 0x00, 0xc3])
        #expect(line(binary).contains(#""secret_b64":"/wDD""#) && !line(binary).contains(#""secret":"#))
        func decoded(_ json: String) throws -> SecretBytes? {
            let answer = try MessageCodec.decode(ResponseLine.self, from: Array(json.utf8))
            guard case .success(let result) = answer.response else { return nil }
            return result.item?.secret
        }
        let item = #""service":"s","account":"a","label":"","comment":"","kind":"secret","created":"c","modified":"m""#
        #expect(try decoded(#"{"id":1,"ok":true,"result":{"item":{"# + item + #","secret_b64":"/wDD"}}}"#) == binary)
        #expect(try decoded(#"{"id":1,"ok":true,"result":{"item":{"# + item + "}}}") == nil)
        #expect { try decoded(#"{"id":1,"ok":true,"result":{"item":{"# + item + #","secret":"a","secret_b64":"YQ=="}}}"#) } throws: {
            "\($0)".contains("not both")
        }
        #expect { try decoded(#"{"id":1,"ok":true,"result":{"item":{"# + item + #","secret_b64":"***"}}}"#) } throws: {
            "\($0)" == "secret_b64 is not valid base64"
        }
        // An item anywhere else (a list) must not carry a secret.
        #expect(throws: VaultError.self) { try decoded(#"{"id":1,"ok":true,"result":{"items":[{"# + item + #","secret":"x"}]}}"#) }
    }

    @Test func timestampsAreRFC3339UTCWithMilliseconds() {
        #expect(Timestamp.rfc3339(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(milliseconds: 1_796_040_245_123) == "2026-11-30T12:04:05.123Z")
        #expect(Timestamp.rfc3339(microseconds: 1_796_040_245_123_456) == "2026-11-30T12:04:05.123456Z")
        #expect(Timestamp.rfc3339(microseconds: 7) == "1970-01-01T00:00:00.000007Z")
        #expect(Timestamp.microseconds(rfc3339: "2026-11-30T12:04:05.123456Z") == 1_796_040_245_123_456)
        #expect(Timestamp.microseconds(rfc3339: "2026-11-30T12:04:05.1Z") == 1_796_040_245_100_000)
        #expect(Timestamp.microseconds(rfc3339: "2026-11-30T12:04:05Z") == 1_796_040_245_000_000)
        for bad in ["2026-11-30T12:04:05.1234567Z", "2026-11-30T12:04:05.Z", "2026-11-30T12:04:05.12a456Z", "2026-11-30 12:04:05Z"] {
            #expect(Timestamp.microseconds(rfc3339: bad) == nil, "\(bad)")
        }
        // Items' times stay milliseconds: six digits are not one of them.
        #expect(Timestamp.milliseconds(rfc3339: "2026-11-30T12:04:05.123456Z") == nil)
        #expect(Timestamp.milliseconds(rfc3339: "2026-11-30T12:04:05.123Z") == 1_796_040_245_123)
        #expect(Timestamp.rfc3339(seconds: 1_796_040_245.123) == "2026-11-30T12:04:05.123Z")
        // Whatever a caller hands it, it answers rather than trapping.
        for wild in [Double.infinity, -.infinity, .nan, 1e300, -1e300] { #expect(!Timestamp.rfc3339(seconds: wild).isEmpty) }
    }

    @Test func socketLocationFollowsTheDocumentedOrder() {
        #expect(SocketLocation.path(explicit: "/x.sock", environment: ["VAULT_SOCKET": "/y.sock"]) == "/x.sock")
        #expect(SocketLocation.path(environment: ["VAULT_SOCKET": "/y.sock", "XDG_RUNTIME_DIR": "/run/user/1"]) == "/y.sock")
        #expect(SocketLocation.path(environment: ["XDG_RUNTIME_DIR": "/run/user/1"]) == "/run/user/1/vault/vault.sock")
        // Without XDG_RUNTIME_DIR: a private directory under the home, never a name in /tmp.
        #expect(SocketLocation.path(environment: ["HOME": "/home/u"]) == "/home/u/.local/state/vault/vault.sock")
        #expect(SocketLocation.path(environment: ["HOME": "/home/u/", "XDG_RUNTIME_DIR": "run/user/1"]) == "/home/u/.local/state/vault/vault.sock")
        // A relative or missing HOME: the home in the user database.
        for environment in [[:], ["HOME": "home/u"]] {
            let path = SocketLocation.path(environment: environment)
            #expect(path.hasSuffix("/.local/state/vault/vault.sock") && !path.hasPrefix("/tmp") && !path.hasPrefix("home/"), "\(path)")
        }
        // No home at all: /tmp, where the daemon's and clients' checks keep others out.
        #expect(SocketLocation.fallback(home: nil) == "/tmp/vault-\(getuid())/vault.sock")
        #expect(SocketLocation.fallback(home: "relative") == "/tmp/vault-\(getuid())/vault.sock")
    }

    @Test func durationsParseTheUsualUnits() {
        #expect(DurationText.seconds("90") == 90)
        #expect(DurationText.seconds("15m") == 900)
        #expect(DurationText.seconds("2h") == 7200)
        #expect(DurationText.seconds("1d") == 86400)
        #expect(DurationText.seconds("0") == nil)
        #expect(DurationText.seconds("-5s") == nil)
        #expect(DurationText.seconds("soon") == nil)
        // Nothing a clock or a timer cannot hold: at most ten years, never infinite.
        #expect(DurationText.seconds("3650d") == 315_360_000.0)
        #expect(DurationText.seconds("3651d") == nil)
        #expect(DurationText.seconds("1e305d") == nil)
        #expect(DurationText.seconds("inf") == nil)
        #expect(DurationText.seconds("nan") == nil)
    }
}
