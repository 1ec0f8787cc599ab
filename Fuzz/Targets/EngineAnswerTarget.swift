import Foundation
import VaultCore
import VaultRemotes
import VaultTokens

/// A remote engine's answers (OpenBao, HashiCorp Vault) as the agent reads them: the first byte
/// picks the HTTP status, the rest is the body, given to every call of `EngineClient` (login,
/// token lookup and renewal, read, metadata, write, list). What a call returns must hold only
/// what the checks allow: a token of printable characters, at most the documented number and
/// size of fields, names that are paths.
enum EngineAnswerTarget: FuzzTarget {
    static let name = "engine-answer"
    static let maxLength = 8192
    static let statuses = [200, 200, 200, 204, 307, 400, 403, 404, 429, 500, 503]

    struct Scripted: HTTPTransport {
        let status: Int
        let body: Data
        func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> HTTPClient.Result {
            .response(status: status, body: self.body)
        }
    }

    static let settings = try! RemoteSettings(name: "fuzz", url: "http://127.0.0.1:9", prefix: "team", auth: RemoteAuth(method: .approle, roleID: "r")).validated()
    static let token = EngineToken(value: "s.fuzz", lease: 60, renewable: true, now: 1_800_000_000)

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let first = input.first else { return }
        let client = EngineClient(settings: settings, http: Scripted(status: statuses[Int(first) % statuses.count], body: Data(input.dropFirst())),
                                  clock: { 1_800_000_000 })
        let path = try! KVPath("app/db")
        for answer in [try? client.login(credential: "secret"), try? client.lookup(token), try? client.renew(token)] {
            guard let answer else { continue }
            try FuzzFinding.check(!answer.value.isEmpty && answer.value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a token with spaces or controls was accepted")
            try FuzzFinding.check(answer.lease >= 0 && answer.lease <= DurationText.maximum, "a lease out of range was accepted")
        }
        if let secret = try? client.read(path, token: token) {
            try FuzzFinding.check(secret.version > 0, "a version below 1 was accepted")
            try FuzzFinding.check(secret.fields.count <= EngineAnswer.maximumFields, "more fields than the cap were accepted")
            for (name, value) in secret.fields {
                try FuzzFinding.check(!name.isEmpty && name.utf8.count <= EngineAnswer.maximumFieldName && value.utf8.count <= EngineAnswer.maximumValue,
                                      "a field over its limits was accepted")
            }
            try FuzzFinding.check((try? JSONSerialization.jsonObject(with: Data(secret.fieldsJSON.utf8))) != nil, "the fields' JSON does not parse")
        }
        if let metadata = try? client.metadata(path, token: token) {
            try FuzzFinding.check(metadata.versions.allSatisfy { $0.version > 0 } && metadata.currentVersion >= 0, "a version below 1 was accepted")
        }
        if let keys = try? client.list(try! KVPath("app/", folder: true), token: token) {
            try FuzzFinding.check(keys.allSatisfy { !$0.isEmpty && KVPath.problem(with: $0, folder: true) == nil }, "a listed name that is not a path was accepted")
        }
        _ = try? client.write(path, fields: ["k": "v"], cas: 1, token: token)
        _ = client.health()
    }
}
