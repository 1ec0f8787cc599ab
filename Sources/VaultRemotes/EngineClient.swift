import Foundation
import VaultCore
import VaultTokens

/// The engine's HTTP API, one blocking call per method, for one remote's settings. Every answer
/// goes through `EngineAnswer`; every path segment is percent-encoded; the token travels only in
/// `X-Vault-Token`, never in a URL; redirects are never followed (`HTTPClient`).
///
/// Call from threads that may block (vaultd's connection and refresh threads), never the
/// cooperative pool.
public struct EngineClient: Sendable {
    public let settings: RemoteSettings
    let http: any HTTPTransport
    let clock: @Sendable () -> Double

    /// The largest answer read: a listing of many keys, a secret of many fields.
    public static let maximumAnswer = 4 << 20

    public init(settings: RemoteSettings, http: (any HTTPTransport)? = nil, timeout: Double = 10, clock: @escaping @Sendable () -> Double) {
        self.settings = settings
        self.http = http ?? HTTPClient(timeout: timeout, maximumBodySize: Self.maximumAnswer, caFile: settings.caFile)
        self.clock = clock
    }

    // MARK: Tokens

    /// Logs in with `settings.auth` and `credential`; the engine's new token.
    public func login(credential: String?) throws(EngineError) -> EngineToken {
        let auth = settings.auth
        switch auth.method {
        case .token:
            guard let credential else { throw .rejected(400, "no token to log in with") }
            return try lookup(EngineToken(value: credential, lease: 0, renewable: false, now: clock()))
        case .approle:
            let body = try send("POST", "/v1/auth/\(authMount("approle"))/login", token: nil,
                                json: ["role_id": auth.roleID ?? "", "secret_id": credential ?? ""])
            return try EngineAnswer.token(body, now: clock())
        case .userpass:
            let body = try send("POST", "/v1/auth/\(authMount("userpass"))/login/\(KVPath.encoded(auth.username ?? ""))", token: nil,
                                json: ["password": credential ?? ""])
            return try EngineAnswer.token(body, now: clock())
        case .jwt:
            let jwt = try Self.readJWT(auth.jwtFile ?? "")
            let body = try send("POST", "/v1/auth/\(authMount("jwt"))/login", token: nil, json: ["role": auth.role ?? "", "jwt": jwt])
            return try EngineAnswer.token(body, now: clock())
        }
    }

    private func authMount(_ method: String) -> String {
        (settings.auth.mount ?? method).split(separator: "/").map { KVPath.encoded(String($0)) }.joined(separator: "/")
    }

    /// `auth/token/lookup-self`: the token's remaining lease, as the engine sees it.
    public func lookup(_ token: EngineToken) throws(EngineError) -> EngineToken {
        var found = try EngineAnswer.lookup(try send("GET", "/v1/auth/token/lookup-self", token: token.value), now: clock())
        found.value = token.value
        return found
    }

    /// `auth/token/renew-self`: the same token with a new lease.
    public func renew(_ token: EngineToken) throws(EngineError) -> EngineToken {
        var renewed = try EngineAnswer.token(try send("POST", "/v1/auth/token/renew-self", token: token.value, json: [:]), now: clock())
        renewed.value = token.value
        return renewed
    }

    /// `auth/token/revoke-self`, when a remote is removed; failures are the caller's to ignore.
    public func revoke(_ token: EngineToken) throws(EngineError) {
        _ = try send("POST", "/v1/auth/token/revoke-self", token: token.value, json: [:])
    }

    // MARK: KV v2

    /// The latest version of `path`, or version `version`.
    public func read(_ path: KVPath, version: Int? = nil, token: EngineToken) throws(EngineError) -> KVSecret {
        let query = version.map { "?version=\($0)" } ?? ""
        return try EngineAnswer.secret(try send("GET", settings.enginePath("data", path) + query, token: token.value))
    }

    public func metadata(_ path: KVPath, token: EngineToken) throws(EngineError) -> KVMetadata {
        try EngineAnswer.metadata(try send("GET", settings.enginePath("metadata", path), token: token.value))
    }

    /// Writes `fields` as a new version; `cas` nil writes whatever the current version is, 0
    /// only when the secret does not exist, N only when N is the current version.
    public func write(_ path: KVPath, fields: [String: String], cas: Int?, token: EngineToken) throws(EngineError) -> Int {
        var body: [String: Any] = ["data": fields]
        if let cas { body["options"] = ["cas": cas] }
        return try EngineAnswer.writtenVersion(try send("POST", settings.enginePath("data", path), token: token.value, json: body))
    }

    /// Soft-deletes the latest version.
    public func delete(_ path: KVPath, token: EngineToken) throws(EngineError) {
        _ = try send("DELETE", settings.enginePath("data", path), token: token.value)
    }

    /// The names under the folder `path` (empty: the prefix's root); folders end in `/`.
    public func list(_ path: KVPath, token: EngineToken) throws(EngineError) -> [String] {
        var folder = settings.enginePath("metadata", path)
        if !folder.hasSuffix("/") { folder += "/" }
        do {
            return try EngineAnswer.keys(try send("LIST", folder, token: token.value))
        } catch .notFound {
            return []
        }
    }

    /// `sys/health`: nil when active and unsealed, else why not.
    public func health() -> EngineError? {
        do {
            _ = try send("GET", "/v1/sys/health?standbyok=true&perfstandbyok=true", token: nil)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Transport

    /// `wrapTTL`: seconds the engine keeps the answer for one unwrap (`X-Vault-Wrap-TTL`),
    /// answering `wrap_info` instead.
    func send(_ method: String, _ path: String, token: String?, json: [String: Any]? = nil, wrapTTL: Int? = nil) throws(EngineError) -> Data {
        guard let url = URL(string: settings.url + path) else { throw .malformed("the remote's address and path do not make a URL") }
        var headers = ["X-Vault-Request": "true"]
        if let token { headers["X-Vault-Token"] = token }
        if let wrapTTL { headers["X-Vault-Wrap-TTL"] = "\(wrapTTL)s" }
        var body: Data?
        if let json {
            body = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            headers["Content-Type"] = "application/json"
        }
        defer { if var body { body.withUnsafeMutableBytes { SecretBytes.wipe($0) } } }
        switch http.send(method, url, headers: headers, body: body) {
        case .response(let status, let answer):
            try EngineAnswer.check(status: status, body: answer)
            return answer
        case .failed(let why):
            throw .unreachable(why)
        case .refused(let why):
            throw .malformed(why)
        }
    }

    /// The JWT in `path`: a regular file, at most 16 KiB, one token of base64url parts.
    static func readJWT(_ path: String) throws(EngineError) -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 16 << 10 else {
            throw .rejected(400, "cannot read the JWT file \(EngineError.sanitized(path)) (missing, unreadable or over 16 KiB)")
        }
        let jwt = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !jwt.isEmpty, jwt.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .rejected(400, "the JWT file \(EngineError.sanitized(path)) does not hold one token")
        }
        return jwt
    }
}
