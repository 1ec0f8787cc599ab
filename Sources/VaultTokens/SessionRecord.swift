import Foundation
import VaultCore

/// A sign-in session as vault stores it: the secret of an item of kind `session`, as JSON.
/// Everything here is as confidential as the tokens (client secrets included).
public struct SessionRecord: Codable, Sendable, Equatable {
    public var version = 1
    /// Stored as its raw value ("oauth2", "supabase", "firebase"); absent in old records: oauth2.
    public var provider: ProviderKind
    public var tokenEndpoint: String
    public var clientID: String?
    public var clientSecret: String?
    /// Supabase: the project URL and its API key (anon or publishable).
    public var projectURL: String?
    public var apiKey: String?
    /// OAuth 2.0 token revocation endpoint (RFC 7009), used by logout when known.
    public var revocationEndpoint: String?
    public var scope: String?
    public var accessToken: String
    public var refreshToken: String?
    public var tokenType: String
    /// Unix seconds; nil when the provider gave no lifetime.
    public var expiresAt: Double?
    public var userID: String?
    public var email: String?
    /// Set when the provider rejected the refresh token: the user must sign in again.
    public var needsSignIn = false
    /// Unix seconds of the last refresh by `SessionRefresher` (its rule against refresh storms).
    public var refreshedAt: Double?

    enum CodingKeys: String, CodingKey {
        case version, provider, scope, email
        case tokenEndpoint = "token_endpoint"
        case projectURL = "project_url"
        case apiKey = "api_key"
        case revocationEndpoint = "revocation_endpoint"
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case userID = "user_id"
        case needsSignIn = "needs_sign_in"
        case refreshedAt = "refreshed_at"
    }

    public init(provider: ProviderKind, tokenEndpoint: String, clientID: String?, clientSecret: String?, scope: String?,
                accessToken: String, refreshToken: String?, tokenType: String, expiresAt: Double?) {
        self.provider = provider
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
    }

    /// A session before its first tokens: what a sign-in fills in.
    public static func beforeSignIn(provider: ProviderKind, tokenEndpoint: String, clientID: String? = nil, clientSecret: String? = nil, scope: String? = nil,
                                    projectURL: String? = nil, apiKey: String? = nil, email: String? = nil) -> SessionRecord {
        var record = SessionRecord(provider: provider, tokenEndpoint: tokenEndpoint, clientID: clientID, clientSecret: clientSecret, scope: scope,
                                   accessToken: "-", refreshToken: nil, tokenType: "Bearer", expiresAt: nil)
        record.projectURL = projectURL
        record.apiKey = apiKey
        record.email = email
        return record
    }

    /// An OAuth 2.0 session before its first tokens.
    public static func beforeSignIn(oauth2 settings: OAuth2Settings) -> SessionRecord {
        var record = beforeSignIn(
            provider: .oauth2, tokenEndpoint: settings.tokenEndpoint, clientID: settings.clientID,
            clientSecret: settings.clientSecret, scope: settings.scope)
        record.revocationEndpoint = settings.revocationEndpoint
        return record
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        // Decoded as text so an unknown provider is named in the error rather than a type mismatch.
        provider = try ProviderKind(name: container.decodeIfPresent(String.self, forKey: .provider) ?? ProviderKind.oauth2.rawValue)
        let project = try container.decodeIfPresent(String.self, forKey: .projectURL)
        if let fallback = ProviderRegistry.type(of: provider).defaultTokenEndpoint(projectURL: project) {
            tokenEndpoint = try container.decodeIfPresent(String.self, forKey: .tokenEndpoint) ?? fallback
        } else {
            tokenEndpoint = try container.decode(String.self, forKey: .tokenEndpoint)
        }
        clientID = try container.decodeIfPresent(String.self, forKey: .clientID)
        clientSecret = try container.decodeIfPresent(String.self, forKey: .clientSecret)
        projectURL = try container.decodeIfPresent(String.self, forKey: .projectURL)
        apiKey = try container.decodeIfPresent(String.self, forKey: .apiKey)
        revocationEndpoint = try container.decodeIfPresent(String.self, forKey: .revocationEndpoint)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        tokenType = try container.decodeIfPresent(String.self, forKey: .tokenType) ?? "Bearer"
        expiresAt = try container.decodeIfPresent(Double.self, forKey: .expiresAt)
        userID = try container.decodeIfPresent(String.self, forKey: .userID)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        needsSignIn = try container.decodeIfPresent(Bool.self, forKey: .needsSignIn) ?? false
        refreshedAt = try container.decodeIfPresent(Double.self, forKey: .refreshedAt)
    }

    /// Reads a session to import: a record, an OAuth 2.0 token response (RFC 6749 §5.1) with
    /// `token_endpoint` and `client_id` beside it, a supabase-js session (snake_case) or a
    /// supabase-swift `Session` as its JSONEncoder writes it (camelCase: `accessToken`,
    /// `refreshToken`, `expiresIn`, `expiresAt`, `tokenType`, `user`); `expires_in` (number or
    /// string) becomes `expires_at`. `settings` fill in what the JSON lacks (provider, project_url,
    /// api_key, token_endpoint, client_id): a Supabase session carries only tokens and the user.
    /// What is missing is reported as the vaultctl option that supplies it.
    public static func importing(_ json: [UInt8], now: Double, settings: [String: String] = [:]) throws -> SessionRecord {
        var json = json
        var lifetime: Double?
        if var object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] {
            // supabase-swift's Session: the same fields, camelCase.
            var renamed = false
            for (camel, snake) in camelCaseFields where object[snake] == nil {
                guard let value = object.removeValue(forKey: camel) else { continue }
                object[snake] = value
                renamed = true
            }
            let provider = (object["provider"] as? String) ?? settings["provider"]
            if object["token_endpoint"] == nil && settings["token_endpoint"] == nil && (provider == nil || provider == ProviderKind.oauth2.rawValue) {
                throw VaultError.invalidInput(
                    "the session JSON names no token endpoint: for an OAuth 2.0 token response pass --token-endpoint URL "
                        + "(and --client-id ID if the provider needs one); for a Supabase session pass --provider supabase --url URL --anon-key KEY; "
                        + "for a Firebase one --provider firebase --api-key KEY")
            }
            if object["access_token"] == nil {
                throw VaultError.invalidInput("the session JSON has no access_token (or accessToken): it is not a session or token response")
            }
            do {
                lifetime = try ProviderValue.seconds(object["expires_in"], field: "expires_in", within: ProviderValue.lifetimes)
            } catch {
                throw VaultError.invalidInput("the session JSON is not usable: \(error)")
            }
            // OAuth client libraries (requests-oauthlib, authlib) keep `scope` as a list; RFC 6749
            // writes it as one space-separated string.
            if let scopes = object["scope"] as? [Any] {
                guard let names = scopes as? [String] else {
                    throw VaultError.invalidInput("the session JSON is not usable: 'scope' is a list of something other than strings")
                }
                object["scope"] = names.joined(separator: " ")
                renamed = true
            }
            if !settings.isEmpty || renamed {
                for (name, value) in settings where object[name] == nil { object[name] = value }
                // A Supabase session object's user: keep its id and email.
                if let user = object["user"] as? [String: Any] {
                    if object["user_id"] == nil { object["user_id"] = user["id"] }
                    if object["email"] == nil { object["email"] = user["email"] }
                    object["user"] = nil
                }
                if let data = try? JSONSerialization.data(withJSONObject: object) { json = Array(data) }
            }
        }
        var record: SessionRecord
        do {
            record = try JSONDecoder().decode(SessionRecord.self, from: Data(json))
            if record.expiresAt == nil, let lifetime { record.expiresAt = now + lifetime }
        } catch let error as VaultError {
            throw error
        } catch let error as DecodingError {
            throw VaultError.invalidInput("the session JSON is not usable: \(Self.describe(error))")
        } catch {
            throw VaultError.invalidInput("the session JSON is not valid JSON")
        }
        try ProviderRegistry.type(of: record.provider).checkImported(record)
        try record.validate()
        return record
    }

    /// supabase-swift's `Session` keys and the token-response names they stand for.
    static let camelCaseFields = [
        ("accessToken", "access_token"), ("refreshToken", "refresh_token"), ("expiresIn", "expires_in"),
        ("expiresAt", "expires_at"), ("tokenType", "token_type"),
    ]

    /// Takes a provider's new tokens: a rotated refresh token replaces the old one, and the
    /// session no longer needs a sign-in.
    public mutating func apply(_ grant: TokenGrant, now: Double = SessionClock.now()) {
        accessToken = grant.accessToken
        tokenType = grant.tokenType
        expiresAt = grant.expiresAt ?? grant.expiresIn.map { now + $0 }
        if let userID = grant.userID { self.userID = userID }
        if let email = grant.email { self.email = email }
        if let rotated = grant.refreshToken { refreshToken = rotated }
        if let scope = grant.scope { self.scope = scope }
        needsSignIn = false
    }

    public func validate() throws {
        try Self.checkEndpoint(tokenEndpoint, name: "token_endpoint")
        if accessToken.isEmpty { throw VaultError.invalidInput("access_token is empty") }
        do {
            try check()
        } catch {
            throw VaultError.invalidInput("the session is not usable: \(error)")
        }
    }

    /// Every value checked as one from a provider would be (`ProviderValue`): tokens within
    /// b64token, `expires_at` a finite time within range, text within size limits and free of
    /// control characters.
    func check() throws(ProviderValue.Problem) {
        try ProviderValue.checkToken(accessToken, field: "access_token")
        if let refreshToken { try ProviderValue.checkToken(refreshToken, field: "refresh_token") }
        _ = try ProviderValue.tokenType(tokenType, field: "token_type")
        if let expiresAt { try ProviderValue.check(expiresAt, field: "expires_at", within: ProviderValue.unixTimes) }
        let long = ProviderValue.maximumLongTextLength
        let texts: [(String, String?, Int)] = [
            ("token_endpoint", tokenEndpoint, long), ("revocation_endpoint", revocationEndpoint, long), ("project_url", projectURL, long),
            ("client_id", clientID, long), ("client_secret", clientSecret, long), ("api_key", apiKey, long), ("scope", scope, long),
            ("user_id", userID, ProviderValue.maximumTextLength), ("email", email, ProviderValue.maximumTextLength),
        ]
        for (field, value, limit) in texts {
            if let value { try ProviderValue.checkText(value, field: field, limit: limit) }
        }
    }

    /// An endpoint must be https; plain http is accepted for loopback test servers only.
    public static func checkEndpoint(_ endpoint: String, name: String = "the endpoint") throws {
        guard let url = URL(string: endpoint), let scheme = url.scheme, ["https", "http"].contains(scheme), url.host != nil else {
            throw VaultError.invalidInput("\(name) must be an http(s) URL")
        }
        if scheme == "http", !["127.0.0.1", "localhost", "::1"].contains(url.host ?? "") {
            throw VaultError.invalidInput("\(name) must use https (plain http is accepted for loopback test servers only)")
        }
    }

    /// The JSON stored as the item's secret. Throws, rather than giving something empty or
    /// partial, when a value is unusable or the encoder fails: the caller then keeps the
    /// previous record.
    public func encoded() throws -> SecretBytes {
        do {
            try check()
        } catch {
            throw VaultError.invalidInput("the session was not stored: \(error)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(self)
        } catch {
            throw VaultError.internal("the session could not be encoded; it was not stored")
        }
        guard !data.isEmpty else { throw VaultError.internal("the session encoded to nothing; it was not stored") }
        return SecretBytes(Array(data))
    }

    /// A stored session, checked like one from a provider: a record stored before these checks
    /// with an unusable value (an `expires_at` of 1e20) is reported, not trusted.
    public static func decoding(_ secret: SecretBytes, key: ItemKey) throws -> SessionRecord {
        let record: SessionRecord
        do {
            record = try secret.withUnsafeBytes { try JSONDecoder().decode(SessionRecord.self, from: Data($0)) }
        } catch {
            throw VaultError.invalidInput("the session stored for \(key) cannot be read; sign in again")
        }
        do {
            try record.check()
        } catch {
            throw VaultError.invalidInput("the session stored for \(key) is not usable (\(error)); sign in again, import it again, or 'vaultctl logout --local' it")
        }
        return record
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "it is not one JSON object"
        default: "malformed"
        }
    }
}
