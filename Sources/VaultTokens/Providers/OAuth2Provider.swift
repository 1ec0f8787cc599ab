import VaultCore

/// Any OAuth 2.0 authorization server (RFC 6749): the resource owner password grant for sign-in,
/// the refresh token grant, and RFC 7009 revocation for sign-out. No standard sign-up or password
/// reset exists. The device grant is `DeviceAuthorization`, beside this.
public struct OAuth2Provider: SignInProvider {
    public static let kind = ProviderKind.oauth2
    public let client: TokenEndpointClient
    /// The session before its first tokens: endpoints, client, scope.
    public let template: SessionRecord

    /// RFC 6749 §5.2: only `invalid_grant` says the refresh token is over ("sign in again").
    public static let signInAgainCodes: Set<String> = ["invalid_grant"]

    public static func defaultTokenEndpoint(projectURL: String?) -> String? { nil }

    public static func checkImported(_ record: SessionRecord) throws {}

    public init(settings: ProviderSettings, transport: any HTTPTransport) throws {
        guard case .oauth2(let oauth2) = settings else { throw ProviderRegistry.mismatch(settings, expected: Self.kind) }
        let template = SessionRecord.beforeSignIn(oauth2: oauth2)
        try template.validate()
        self.init(template: template, transport: transport)
    }

    public init(record: SessionRecord, transport: any HTTPTransport) throws {
        self.init(template: record, transport: transport)
    }

    init(template: SessionRecord, transport: any HTTPTransport) {
        self.template = template
        client = TokenEndpointClient(http: transport)
    }

    public var defaultService: String? { nil }

    /// The resource owner password grant (RFC 6749 §4.3).
    public func signIn(user: String, password: SecretBytes) throws -> SessionRecord {
        var form = [("grant_type", "password"), ("username", user), ("password", password.utf8String ?? "")]
        if let scope = template.scope { form.append(("scope", scope)) }
        switch client.request(endpoint: template.tokenEndpoint, form: form, clientID: template.clientID, clientSecret: template.clientSecret) {
        case .granted(let grant):
            var record = template
            record.apply(grant)
            record.userID = record.userID ?? user
            return record
        case .rejected(_, let message):
            throw VaultError.permissionDenied("the server refused the sign-in: \(message); check the username and password")
        case .temporary(let message), .malformed(let message):
            throw VaultError.unavailable("sign-in failed: \(message)")
        }
    }

    public func signUp(user: String, password: SecretBytes) throws -> SignUpResult {
        throw VaultError.invalidInput("OAuth 2.0 has no standard sign-up; sign up with the provider, then 'vaultctl login oauth2'")
    }

    /// The refresh token grant (RFC 6749 §6).
    public func refresh(_ record: SessionRecord, refreshToken: String) -> TokenOutcome {
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope = record.scope { form.append(("scope", scope)) }
        return client.request(endpoint: record.tokenEndpoint, form: form, clientID: record.clientID, clientSecret: record.clientSecret)
            .signingInAgain(only: Self.signInAgainCodes, from: "the token endpoint")
    }

    /// Revokes the refresh token (RFC 7009) when the session knows a revocation endpoint; only
    /// the server's confirmation (200, which it also answers for a token already invalid) lets
    /// the caller forget the session.
    public func signOut(_ record: SessionRecord) throws -> Bool {
        guard let endpoint = record.revocationEndpoint, let refreshToken = record.refreshToken else { return false }
        if let problem = client.revoke(endpoint: endpoint, token: refreshToken, clientID: record.clientID, clientSecret: record.clientSecret) {
            throw VaultError.unavailable("could not revoke the session on the server: \(problem); the session is kept: try again, or 'vaultctl logout --local' to forget it here only")
        }
        return true
    }

    public func sendPasswordReset(email: String) throws {
        throw VaultError.invalidInput("OAuth 2.0 has no standard password reset; reset it with the provider")
    }
}
