import VaultCore

/// One sign-in provider: how a session is started (sign-in, sign-up), kept alive (refresh),
/// ended (sign-out) and recovered (password reset). A provider is built either from the
/// settings of a sign-in request or from a stored `SessionRecord`; `ProviderRegistry` is the one
/// place that knows which type serves which `ProviderKind`.
///
/// Every method blocks on the network through its `HTTPTransport`: call from threads that may
/// block, never the cooperative pool. Errors are `VaultError`s whose messages never contain
/// tokens, passwords or client secrets.
public protocol SignInProvider: Sendable {
    static var kind: ProviderKind { get }

    /// The token endpoint of a stored record whose JSON has none (records written before
    /// `token_endpoint` was always stored); nil when the record must name it.
    static func defaultTokenEndpoint(projectURL: String?) -> String?

    /// Checks that an imported record carries what this provider needs to refresh it.
    static func checkImported(_ record: SessionRecord) throws

    /// For a sign-in: throws `.invalidInput` when the settings are unusable (a bad URL).
    init(settings: ProviderSettings, transport: any HTTPTransport) throws

    /// For a stored session: throws `.invalidInput` when the record lacks what the provider needs.
    init(record: SessionRecord, transport: any HTTPTransport) throws

    /// The service a session is stored under when the request names none; nil when it must.
    var defaultService: String? { get }

    /// Signs in with a user name (or email) and password; the session to store.
    func signIn(user: String, password: SecretBytes) throws -> SessionRecord

    /// Creates the account and signs in; throws `.invalidInput` where there is no standard sign-up.
    func signUp(user: String, password: SecretBytes) throws -> SignUpResult

    /// Asks for new tokens with the session's refresh token, classified.
    func refresh(_ record: SessionRecord, refreshToken: String) -> TokenOutcome

    /// Whether `signOut` sends the access token (so it must be live): Supabase's does.
    static var signsOutWithAccessToken: Bool { get }

    /// Ends the session on the server where the provider can: true when the server confirmed
    /// (or said it was gone already), false when the provider has no server-side sign-out. Any
    /// other answer, or none, throws, so the caller keeps the local session and the sign-out can
    /// be retried.
    @discardableResult
    func signOut(_ record: SessionRecord) throws -> Bool

    /// Sends a password reset email; throws `.invalidInput` where there is no standard one.
    func sendPasswordReset(email: String) throws
}

extension SignInProvider {
    public static var signsOutWithAccessToken: Bool { false }
}
