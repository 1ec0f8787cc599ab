import Foundation
import VaultCore
import VaultSystem
import VaultTokens

/// A small KV v2 engine in memory, for the agent's in-process tests: AppRole logins issue
/// tokens with a lease of `ttl` seconds that renewal extends up to `maxTTL` from the login,
/// reads and writes need a live token, writes honour check-and-set. Its clock is the test's.
final class ScriptedEngine: HTTPTransport, @unchecked Sendable {
    struct Token { var expires: Double; var maximum: Double }

    private let lock = AdaptiveLock<Void>(())
    var now: Double = 1_000_000
    var ttl: Double = 10
    var maxTTL: Double = 25
    var reachable = true
    private(set) var logins = 0
    private(set) var renewals = 0
    private(set) var requests: [String] = []
    var tokens: [String: Token] = [:]
    var secrets: [String: [[String: String]]] = [:]

    var clock: @Sendable () -> Double { { [unowned self] in lock.withLock { _ in now } } }

    func advance(_ seconds: Double) { lock.withLock { _ in now += seconds } }
    func revokeAll() { lock.withLock { _ in tokens = [:] } }
    func setReachable(_ value: Bool) { lock.withLock { _ in reachable = value } }
    func put(_ path: String, _ fields: [String: String]) { lock.withLock { _ in secrets[path, default: []].append(fields) } }

    func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> HTTPClient.Result {
        lock.withLock { _ in answer(method, url.path, headers["X-Vault-Token"], body) }
    }

    private func answer(_ method: String, _ path: String, _ token: String?, _ body: Data?) -> HTTPClient.Result {
        guard reachable else { return .failed("Couldn't connect to server") }
        requests.append("\(method) \(path)")
        let json = body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        if path == "/v1/auth/approle/login" {
            guard json["secret_id"] as? String == "secret-id" else { return reply(400, ["errors": ["invalid role or secret ID"]]) }
            logins += 1
            let value = "s.token-\(logins)"
            tokens[value] = Token(expires: now + ttl, maximum: now + maxTTL)
            return reply(200, ["auth": ["client_token": value, "lease_duration": Int(ttl), "renewable": true]])
        }
        guard let token, let live = tokens[token], live.expires > now else { return reply(403, ["errors": ["permission denied"]]) }
        switch (method, path) {
        case ("GET", "/v1/auth/token/lookup-self"):
            return reply(200, ["data": ["id": token, "ttl": Int(live.expires - now), "renewable": true]])
        case ("POST", "/v1/auth/token/renew-self"):
            renewals += 1
            let expires = min(now + ttl, live.maximum)
            tokens[token]?.expires = expires
            return reply(200, ["auth": ["client_token": token, "lease_duration": Int(expires - now), "renewable": true]])
        default: break
        }
        if path.hasPrefix("/v1/secret/data/") {
            let key = String(path.dropFirst("/v1/secret/data/".count))
            let versions = secrets[key] ?? []
            if method == "GET" {
                guard let fields = versions.last else { return reply(404, ["errors": []]) }
                return reply(200, ["data": ["data": fields, "metadata": ["version": versions.count, "created_time": "T"]]])
            }
            if let cas = (json["options"] as? [String: Any])?["cas"] as? Int, cas != versions.count {
                return reply(400, ["errors": ["check-and-set parameter did not match the current version"]])
            }
            secrets[key, default: []].append(json["data"] as? [String: String] ?? [:])
            return reply(200, ["data": ["version": versions.count + 1]])
        }
        if path.hasPrefix("/v1/secret/metadata/") {
            let key = String(path.dropFirst("/v1/secret/metadata/".count))
            guard let versions = secrets[key] else { return reply(404, ["errors": []]) }
            return reply(200, ["data": ["current_version": versions.count, "versions": [String: Any]()]])
        }
        return reply(404, ["errors": []])
    }

    private func reply(_ status: Int, _ object: [String: Any]) -> HTTPClient.Result {
        .response(status: status, body: try! JSONSerialization.data(withJSONObject: object))
    }
}
