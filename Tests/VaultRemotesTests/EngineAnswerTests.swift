import Foundation
import Testing
import VaultCore
import VaultRemotes

/// The engine's answers as a hostile or broken engine would send them: every one is refused
/// with a clear error, never quoting the body.
@Suite struct EngineAnswerTests {
    func data(_ text: String) -> Data { Data(text.utf8) }

    func error(_ status: Int, _ body: String) -> EngineError? {
        do {
            try EngineAnswer.check(status: status, body: data(body))
            return nil
        } catch {
            return error
        }
    }

    @Test func statusesMapToErrors() {
        #expect(error(200, "") == nil && error(204, "") == nil)
        #expect(error(307, "") == .redirect(307))
        #expect(error(400, #"{"errors":["check-and-set parameter did not match the current version"]}"#) == .checkAndSet)
        #expect(error(400, #"{"errors":["bad thing"]}"#) == .rejected(400, "bad thing"))
        #expect(error(403, #"{"errors":["permission denied"]}"#) == .forbidden("permission denied"))
        #expect(error(404, #"{"data":{"metadata":{"deletion_time":"2026-12-01T00:00:00Z","version":3}}}"#) == .notFound(deleted: "2026-12-01T00:00:00Z", version: 3))
        #expect(error(404, "{\"errors\":[]}") == .notFound(deleted: nil, version: nil))
        #expect(error(429, "") == .busy(429) && error(503, "") == .sealed && error(500, "") == .server(500))
        #expect(EngineError.sealed.isOffline && EngineError.busy(429).isOffline && !EngineError.forbidden("").isOffline)
        // Control characters and long reasons are cut before they reach a message.
        guard case .rejected(_, let reason) = error(400, #"{"errors":["a\u001b]0;x\u0007b\#(String(repeating: "y", count: 500))"]}"#) else { Issue.record("not rejected"); return }
        #expect(!reason.contains("\u{1b}") && reason.count <= 201)
    }

    @Test func aSecretsFieldsAndVersion() throws {
        let secret = try EngineAnswer.secret(data(#"{"data":{"data":{"password":"p","port":5432,"tls":true,"tags":["a"]},"metadata":{"version":7,"created_time":"2026-12-01T00:00:00Z"}}}"#))
        #expect(secret.version == 7 && secret.created == "2026-12-01T00:00:00Z")
        #expect(secret.fields == ["password": "p", "port": "5432", "tls": "true", "tags": #"["a"]"#])
        #expect(secret.fieldsJSON == #"{"password":"p","port":"5432","tags":"[\"a\"]","tls":"true"}"#)
        #expect(try secret.value("password", at: "kv://t/x") == "p")
        #expect { try secret.value("nope", at: "kv://t/x") } throws: { "\($0)".contains("its fields: password, port, tags, tls") }
    }

    @Test func malformedSecretsAreRefused() {
        let bad = [
            "", "not json", "[]", "{}", #"{"data":5}"#, #"{"data":{"data":{"a":"b"}}}"#,
            #"{"data":{"data":{"a":"b"},"metadata":{"version":0}}}"#,
            #"{"data":{"data":{"":"b"},"metadata":{"version":1}}}"#,
            #"{"data":{"data":{"a":"\#(String(repeating: "x", count: 70_000))"},"metadata":{"version":1}}}"#,
        ]
        for body in bad {
            #expect(throws: EngineError.self, "\(body.prefix(60))") { try EngineAnswer.secret(data(body)) }
        }
        let many = (0...EngineAnswer.maximumFields).map { "\"f\($0)\":\"v\"" }.joined(separator: ",")
        #expect(throws: EngineError.self) { try EngineAnswer.secret(data(#"{"data":{"data":{\#(many)},"metadata":{"version":1}}}"#)) }
        // A deleted version answers data null: not found, with its deletion time.
        #expect { try EngineAnswer.secret(data(#"{"data":{"data":null,"metadata":{"version":2,"deletion_time":"T"}}}"#)) } throws: {
            ($0 as? EngineError) == .notFound(deleted: "T", version: 2)
        }
    }

    @Test func tokensMetadataAndListings() throws {
        let token = try EngineAnswer.token(data(#"{"auth":{"client_token":"s.abc","lease_duration":3600,"renewable":true}}"#), now: 100)
        #expect(token.value == "s.abc" && token.expires == 3700 && token.renewable)
        #expect(token.wantsRenewal(at: 2500, floor: 60) && !token.wantsRenewal(at: 1000, floor: 60))
        let root = try EngineAnswer.lookup(data(#"{"data":{"id":"root","ttl":0,"renewable":false}}"#), now: 100)
        #expect(root.expires == nil && !root.wantsRenewal(at: 1e9, floor: 60))
        for body in [#"{"auth":{"client_token":"a b","lease_duration":1}}"#, #"{"auth":{"client_token":"t","lease_duration":"1"}}"#, #"{"auth":null}"#] {
            #expect(throws: EngineError.self) { try EngineAnswer.token(data(body), now: 0) }
        }
        let metadata = try EngineAnswer.metadata(data(#"{"data":{"current_version":2,"versions":{"2":{"created_time":"b","deletion_time":"","destroyed":false},"1":{"created_time":"a","deletion_time":"d","destroyed":true}}}}"#))
        #expect(metadata.currentVersion == 2 && metadata.versions.map(\.version) == [1, 2] && metadata.versions[0].destroyed)
        #expect(throws: EngineError.self) { try EngineAnswer.metadata(data(#"{"data":{"current_version":1,"versions":{"x":{}}}}"#)) }
        #expect(try EngineAnswer.keys(data(#"{"data":{"keys":["b","a/"]}}"#)) == ["a/", "b"])
        for name in ["../x", "a//b", "", "a\nb"] {
            #expect(throws: EngineError.self, "\(name)") { try EngineAnswer.keys(data(#"{"data":{"keys":[\#(String(data: try! JSONEncoder().encode(name), encoding: .utf8)!)]}}"#)) }
        }
        #expect(try EngineAnswer.writtenVersion(data(#"{"data":{"version":4}}"#)) == 4)
    }
}
