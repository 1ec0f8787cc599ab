/// A valid access token. `expires_at` is RFC 3339 UTC, absent when the provider gave no lifetime.
public struct TokenBody: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    public var expiresAt: String?
    public var account: String

    enum CodingKeys: String, CodingKey {
        case account
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
    }

    public init(accessToken: String, tokenType: String, expiresAt: String?, account: String) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.account = account
    }
}
