import Foundation
import Testing
import VaultCore
import VaultRemotes
import VaultTokens

/// What the client sends: the token only in its header, check-and-set in the body, LIST for
/// listings, each path segment encoded.
@Suite struct EngineClientTests {
    final class Recorder: HTTPTransport, @unchecked Sendable {
        var sent: [(method: String, url: String, headers: [String: String], body: String)] = []
        var answer: HTTPClient.Result

        init(_ answer: HTTPClient.Result) { self.answer = answer }

        func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> HTTPClient.Result {
            sent.append((method, url.absoluteString, headers, body.map { String(decoding: $0, as: UTF8.self) } ?? ""))
            return answer
        }
    }

    func client(_ recorder: Recorder, auth: RemoteAuth = RemoteAuth(method: .token)) throws -> EngineClient {
        let settings = try RemoteSettings(name: "team", url: "http://127.0.0.1:8200", prefix: "p", auth: auth).validated()
        return EngineClient(settings: settings, http: recorder, clock: { 1000 })
    }

    let token = EngineToken(value: "s.token", lease: 60, renewable: true, now: 1000)

    @Test func writesCarryCheckAndSetAndTheTokenOnlyInItsHeader() throws {
        let recorder = Recorder(.response(status: 200, body: Data(#"{"data":{"version":3}}"#.utf8)))
        let version = try client(recorder).write(try KVPath("app/db"), fields: ["k": "v"], cas: 2, token: token)
        #expect(version == 3)
        let sent = try #require(recorder.sent.first)
        #expect(sent.method == "POST" && sent.url == "http://127.0.0.1:8200/v1/secret/data/p/app/db")
        #expect(sent.headers["X-Vault-Token"] == "s.token" && sent.headers["X-Vault-Request"] == "true")
        #expect(sent.body == #"{"data":{"k":"v"},"options":{"cas":2}}"#)
        #expect(!sent.url.contains("s.token"))
    }

    @Test func listingsUseLISTAndAMissingFolderIsEmpty() throws {
        let recorder = Recorder(.response(status: 404, body: Data("{\"errors\":[]}".utf8)))
        #expect(try client(recorder).list(try KVPath("app/", folder: true), token: token) == [])
        #expect(recorder.sent.first?.method == "LIST" && recorder.sent.first?.url == "http://127.0.0.1:8200/v1/secret/metadata/p/app/")
    }

    @Test func loginsSendTheirCredentialInTheBody() throws {
        let recorder = Recorder(.response(status: 200, body: Data(#"{"auth":{"client_token":"s.new","lease_duration":30,"renewable":true}}"#.utf8)))
        let approle = try client(recorder, auth: RemoteAuth(method: .approle, roleID: "role-1")).login(credential: "secret-1")
        #expect(approle.value == "s.new" && approle.expires == 1030)
        #expect(recorder.sent[0].url.hasSuffix("/v1/auth/approle/login") && recorder.sent[0].body == #"{"role_id":"role-1","secret_id":"secret-1"}"#)
        #expect(recorder.sent[0].headers["X-Vault-Token"] == nil)
        _ = try client(recorder, auth: RemoteAuth(method: .userpass, username: "a b")).login(credential: "pw")
        #expect(recorder.sent[1].url.hasSuffix("/v1/auth/userpass/login/a%20b"))
        // An unreachable engine and a redirect are errors, not answers.
        recorder.answer = .failed("Couldn't connect")
        #expect { try client(recorder).read(try KVPath("x"), token: token) } throws: { ($0 as? EngineError) == .unreachable("Couldn't connect") }
        recorder.answer = .response(status: 302, body: Data())
        #expect { try client(recorder).read(try KVPath("x"), token: token) } throws: { ($0 as? EngineError) == .redirect(302) }
    }
}
