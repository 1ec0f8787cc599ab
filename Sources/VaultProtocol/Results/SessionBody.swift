/// A session's non-secret details.
public struct SessionBody: Codable, Sendable, Equatable {
    public var provider: String
    public var user: String?
    /// RFC 3339 UTC; absent when the provider gave no lifetime.
    public var expiresAt: String?
    public var needsSignIn: Bool

    enum CodingKeys: String, CodingKey {
        case provider, user
        case expiresAt = "expires_at"
        case needsSignIn = "needs_sign_in"
    }

    public init(provider: String, user: String?, expiresAt: String?, needsSignIn: Bool) {
        self.provider = provider
        self.user = user
        self.expiresAt = expiresAt
        self.needsSignIn = needsSignIn
    }
}
