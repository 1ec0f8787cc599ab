import Foundation
import Testing
import VaultCore
@testable import VaultTokens

/// Supabase Auth (GoTrue): JSON requests with the API key, both error shapes, sign-up with and
/// without email confirmation, sign-out of this session only.
struct SupabaseProviderTests {
    let settings = ProviderSettings.supabase(SupabaseSettings(projectURL: "https://abc.supabase.co/", apiKey: "anon-key"))
    let session: [String: Any] = [
        "access_token": "AT1", "token_type": "bearer", "expires_in": 3600, "expires_at": 2_000_000_000, "refresh_token": "RT1",
        "user": ["id": "u-1", "email": "a@example.com"],
    ]

    let stored = SessionRecord.beforeSignIn(
        provider: .supabase, tokenEndpoint: "https://abc.supabase.co/auth/v1/token", projectURL: "https://abc.supabase.co", apiKey: "anon-key")

    func provider(_ transport: FakeTransport) throws -> any SignInProvider {
        try ProviderRegistry.provider(for: settings, transport: transport)
    }

    @Test func signInIsAJSONPasswordGrantWithTheAPIKey() throws {
        let transport = FakeTransport([FakeTransport.json(200, session)])
        let supabase = try provider(transport)
        #expect(supabase.defaultService == "abc.supabase.co")
        let record = try supabase.signIn(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        let request = try #require(transport.sent.first)
        #expect(request.method == "POST" && request.url == "https://abc.supabase.co/auth/v1/token?grant_type=password")
        #expect(request.headers["apikey"] == "anon-key" && request.headers["Authorization"] == "Bearer anon-key")
        #expect(request.headers["Content-Type"] == "application/json" && request.headers["X-Supabase-Api-Version"] == "2024-01-01")
        #expect(request.json as NSDictionary == ["email": "a@example.com", "password": "pw"] as NSDictionary)
        #expect(record.provider == .supabase && record.projectURL == "https://abc.supabase.co" && record.apiKey == "anon-key")
        #expect(record.tokenEndpoint == "https://abc.supabase.co/auth/v1/token")
        #expect(record.accessToken == "AT1" && record.refreshToken == "RT1" && record.expiresAt == 2_000_000_000 && record.userID == "u-1")
    }

    @Test func errorsInBothShapesBecomeSentences() throws {
        let new = FakeTransport([FakeTransport.json(400, ["code": "invalid_credentials", "message": "Invalid login credentials"])])
        #expect(throws: VaultError.permissionDenied("could not sign in: wrong email or password")) {
            try provider(new).signIn(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        }
        let legacy = FakeTransport([FakeTransport.json(400, ["code": 400, "error_code": "email_not_confirmed", "msg": "Email not confirmed"])])
        #expect(throws: VaultError.permissionDenied("could not sign in: the email address is not confirmed yet: follow the link in the confirmation email, then sign in")) {
            try provider(legacy).signIn(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        }
    }

    @Test func refreshAnswersAreClassified() throws {
        let stored = self.stored
        func outcome(_ answer: HTTPClient.Result) throws -> (TokenOutcome, FakeTransport) {
            let transport = FakeTransport([answer])
            return (try ProviderRegistry.provider(for: stored, transport: transport).refresh(stored, refreshToken: "RT0"), transport)
        }
        let (granted, transport) = try outcome(FakeTransport.json(200, session))
        #expect(granted.grant?.refreshToken == "RT1")
        #expect(transport.sent.first?.url == "https://abc.supabase.co/auth/v1/token?grant_type=refresh_token")
        #expect(transport.sent.first?.json as NSDictionary? == ["refresh_token": "RT0"] as NSDictionary)
        #expect(try outcome(FakeTransport.json(400, ["code": "refresh_token_already_used", "message": "Already Used"])).0.rejectedCode == "refresh_token_already_used")
        #expect(try outcome(FakeTransport.json(429, [:])).0.isTemporary)
        #expect(try outcome(FakeTransport.json(400, ["code": "over_request_rate_limit"])).0.isTemporary)
        #expect(try outcome(FakeTransport.text(500, "oops")).0.isTemporary)
        #expect(try outcome(.failed("reset")).0.isTemporary)
        #expect(try outcome(FakeTransport.text(200, "<html/>")).0.isMalformed)
        // A session without a refresh token is not a usable answer.
        #expect(try outcome(FakeTransport.json(200, ["access_token": "AT"])).0.isMalformed)
        #expect(try outcome(FakeTransport.text(404, "<html/>")).0.isMalformed)
    }

    @Test func signUpWithConfirmationOnGivesNoSessionYet() throws {
        let pending = FakeTransport([FakeTransport.json(200, ["id": "u-2", "email": "b@example.com"])])
        guard case .pending(let message) = try provider(pending).signUp(user: "b@example.com", password: SecretBytes(utf8: "pw")) else {
            Issue.record("expected no session yet"); return
        }
        #expect(message == "check b@example.com for the confirmation link, then run 'vaultctl login supabase' to sign in")
        #expect(pending.sent.first?.url == "https://abc.supabase.co/auth/v1/signup")
        let signedIn = FakeTransport([FakeTransport.json(200, session)])
        guard case .signedIn(let record) = try provider(signedIn).signUp(user: "b@example.com", password: SecretBytes(utf8: "pw")) else {
            Issue.record("expected a session"); return
        }
        #expect(record.accessToken == "AT1" && record.email == "a@example.com")
        let exists = FakeTransport([FakeTransport.json(422, ["code": "user_already_exists", "message": "User already registered"])])
        #expect(throws: VaultError.permissionDenied("could not sign up: a user with this email already exists: sign in instead (or reset the password)")) {
            try provider(exists).signUp(user: "b@example.com", password: SecretBytes(utf8: "pw"))
        }
    }

    @Test func signOutEndsThisSessionWithItsAccessToken() throws {
        var stored = self.stored
        stored.accessToken = "AT-live"
        let ok = FakeTransport([.response(status: 204, body: Data())])
        #expect(try ProviderRegistry.provider(for: stored, transport: ok).signOut(stored))
        #expect(ok.sent.first?.url == "https://abc.supabase.co/auth/v1/logout?scope=local")
        #expect(ok.sent.first?.headers["Authorization"] == "Bearer AT-live" && ok.sent.first?.headers["apikey"] == "anon-key")
        // Gone already: signed out.
        #expect(try ProviderRegistry.provider(for: stored, transport: FakeTransport([
            FakeTransport.json(404, ["code": "session_not_found", "message": "Session not found"])])).signOut(stored))
        // An expired access token (bad_jwt), a bare 401, a proxy's 403: the refresh token may live on, so no.
        for answer in [FakeTransport.json(401, ["code": "bad_jwt", "message": "invalid JWT"]), FakeTransport.text(401, ""),
                       FakeTransport.json(403, ["error": "forbidden by proxy"])] {
            #expect(throws: VaultError.self) { try ProviderRegistry.provider(for: stored, transport: FakeTransport([answer])).signOut(stored) }
        }
        #expect(throws: VaultError.unavailable("could not sign out on the server: Supabase answered HTTP 503; the session is kept: try again, or 'vaultctl logout --local' to forget it here only")) {
            try ProviderRegistry.provider(for: stored, transport: FakeTransport([FakeTransport.text(503, "")])).signOut(stored)
        }
    }

    @Test func passwordResetPostsRecover() throws {
        let transport = FakeTransport([FakeTransport.json(200, [:])])
        try provider(transport).sendPasswordReset(email: "a@example.com")
        #expect(transport.sent.first?.url == "https://abc.supabase.co/auth/v1/recover")
        #expect(transport.sent.first?.json as NSDictionary? == ["email": "a@example.com"] as NSDictionary)
    }

    @Test func aRecordWithoutProjectOrKeyIsNotUsable() {
        let stored = SessionRecord.beforeSignIn(provider: .supabase, tokenEndpoint: "https://abc.supabase.co/auth/v1/token")
        #expect(throws: VaultError.invalidInput("a supabase session needs project_url and api_key")) {
            try ProviderRegistry.provider(for: stored, transport: FakeTransport([.failed("")]))
        }
    }
}
