/// An OAuth 2.0 client of one authorization server.
public struct OAuth2Settings: Sendable, Equatable {
    public var tokenEndpoint: String
    public var clientID: String?
    /// Confidential: read from `--client-secret-file`, never argv; stored inside the session.
    public var clientSecret: String?
    public var scope: String?
    /// RFC 7009, used by logout when known.
    public var revocationEndpoint: String?

    public init(tokenEndpoint: String, clientID: String? = nil, clientSecret: String? = nil, scope: String? = nil, revocationEndpoint: String? = nil) {
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
        self.revocationEndpoint = revocationEndpoint
    }
}
