import Foundation
import Testing
import VaultCore
@testable import VaultTokens

/// OAuth 2.0: request shapes (form bodies, HTTP Basic client authentication) and how answers
/// are classified.
struct OAuth2ProviderTests {
    let settings = ProviderSettings.oauth2(OAuth2Settings(
        tokenEndpoint: "https://auth.example.com/token", clientID: "my app", clientSecret: "s:cret", scope: "read write",
        revocationEndpoint: "https://auth.example.com/revoke"))
    let granted = FakeTransport.json(200, ["access_token": "AT1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "RT1"])

    func provider(_ transport: FakeTransport, _ settings: ProviderSettings? = nil) throws -> any SignInProvider {
        try ProviderRegistry.provider(for: settings ?? self.settings, transport: transport)
    }

    @Test func passwordGrantIsAFormPostWithBasicClientAuthentication() throws {
        let transport = FakeTransport([granted])
        let record = try provider(transport).signIn(user: "alice", password: SecretBytes(utf8: "p@ss word"))
        let request = try #require(transport.sent.first)
        #expect(request.method == "POST" && request.url == "https://auth.example.com/token")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Accept"] == "application/json")
        // RFC 6749 §2.3.1: id and secret form-encoded, then base64.
        #expect(request.headers["Authorization"] == "Basic " + Data("my%20app:s%3Acret".utf8).base64EncodedString())
        #expect(request.text == "grant_type=password&username=alice&password=p%40ss%20word&scope=read%20write")
        #expect(record.provider == .oauth2 && record.accessToken == "AT1" && record.refreshToken == "RT1")
        #expect(record.userID == "alice" && record.revocationEndpoint == "https://auth.example.com/revoke")
        #expect(abs((record.expiresAt ?? 0) - Date().timeIntervalSince1970 - 3600) < 5)
    }

    @Test func withoutASecretTheClientIDGoesInTheBody() throws {
        let transport = FakeTransport([granted])
        let public_ = ProviderSettings.oauth2(OAuth2Settings(tokenEndpoint: "https://auth.example.com/token", clientID: "cli"))
        _ = try provider(transport, public_).signIn(user: "bob", password: SecretBytes(utf8: "pw"))
        let request = try #require(transport.sent.first)
        #expect(request.headers["Authorization"] == nil)
        #expect(request.text == "grant_type=password&username=bob&password=pw&client_id=cli")
    }

    @Test func refreshIsTheRefreshTokenGrant() throws {
        let transport = FakeTransport([granted])
        let record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token", clientID: "cli", scope: "read"))
        let outcome = try ProviderRegistry.provider(for: record, transport: transport).refresh(record, refreshToken: "RT0")
        #expect(outcome.grant?.accessToken == "AT1")
        #expect(transport.sent.first?.text == "grant_type=refresh_token&refresh_token=RT0&scope=read&client_id=cli")
    }

    @Test func answersAreClassified() throws {
        let record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token"))
        func outcome(_ answer: HTTPClient.Result) throws -> TokenOutcome {
            try ProviderRegistry.provider(for: record, transport: FakeTransport([answer])).refresh(record, refreshToken: "RT0")
        }
        #expect(try outcome(FakeTransport.json(400, ["error": "invalid_grant", "error_description": "expired"])).rejectedCode == "invalid_grant")
        // Only invalid_grant means "sign in again" (RFC 6749 §5.2); invalid_client keeps the session.
        #expect(try outcome(FakeTransport.json(401, ["error": "invalid_client"])).isMalformed)
        #expect(try outcome(FakeTransport.text(503, "busy")).isTemporary)
        #expect(try outcome(FakeTransport.text(429, "")).isTemporary)
        #expect(try outcome(.failed("connection refused")).isTemporary)
        #expect(try outcome(FakeTransport.text(200, "<html>login</html>")).isMalformed)
        #expect(try outcome(FakeTransport.json(200, ["token_type": "Bearer"])).isMalformed)
        #expect(try outcome(FakeTransport.json(400, ["error": "invalid_scope"])).isMalformed)
        // expires_in may be a string.
        #expect(try outcome(FakeTransport.json(200, ["access_token": "A", "expires_in": "60"])).grant?.expiresIn == 60)
    }

    @Test func signInErrorsNameTheProblemNotTheSecrets() throws {
        let refused = FakeTransport([FakeTransport.json(400, ["error": "invalid_grant", "error_description": "bad credentials"])])
        #expect(throws: VaultError.permissionDenied("the server refused the sign-in: invalid_grant: bad credentials; check the username and password")) {
            try provider(refused).signIn(user: "alice", password: SecretBytes(utf8: "hunter2"))
        }
        let down = FakeTransport([FakeTransport.text(502, "")])
        #expect(throws: VaultError.unavailable("sign-in failed: the token endpoint answered HTTP 502")) {
            try provider(down).signIn(user: "alice", password: SecretBytes(utf8: "hunter2"))
        }
    }

    @Test func noStandardSignUpOrPasswordReset() throws {
        let transport = FakeTransport([granted])
        #expect(throws: VaultError.invalidInput("OAuth 2.0 has no standard sign-up; sign up with the provider, then 'vaultctl login oauth2'")) {
            try provider(transport).signUp(user: "a", password: SecretBytes(utf8: "b"))
        }
        #expect(throws: VaultError.invalidInput("OAuth 2.0 has no standard password reset; reset it with the provider")) {
            try provider(transport).sendPasswordReset(email: "a@example.com")
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func signOutRevokesTheRefreshTokenPerRFC7009() throws {
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(
            tokenEndpoint: "https://auth.example.com/token", clientID: "cli", clientSecret: "sec", revocationEndpoint: "https://auth.example.com/revoke"))
        record.refreshToken = "RT-secret"
        let ok = FakeTransport([.response(status: 200, body: Data())])
        #expect(try ProviderRegistry.provider(for: record, transport: ok).signOut(record))
        #expect(ok.sent.first?.url == "https://auth.example.com/revoke")
        #expect(ok.sent.first?.text == "token=RT-secret&token_type_hint=refresh_token")
        #expect(ok.sent.first?.headers["Authorization"]?.hasPrefix("Basic ") == true)
        // An unknown token counts as revoked; an unreachable server keeps the session.
        #expect(try ProviderRegistry.provider(for: record, transport: FakeTransport([FakeTransport.json(400, ["error": "invalid_token"])])).signOut(record))
        // Anything else is no confirmation: 401 invalid_client, a proxy's page, a redirect.
        for answer in [FakeTransport.json(401, ["error": "invalid_client"]), FakeTransport.text(200, "<html>ok</html>"),
                       FakeTransport.text(403, "<html>denied</html>"), FakeTransport.text(307, "")] {
            #expect(throws: VaultError.self) { try ProviderRegistry.provider(for: record, transport: FakeTransport([answer])).signOut(record) }
        }
        do {
            try ProviderRegistry.provider(for: record, transport: FakeTransport([.failed("timed out")])).signOut(record)
            Issue.record("expected an error")
        } catch let error as VaultError {
            #expect(error.description.contains("could not revoke the session on the server") && !error.description.contains("RT-secret"))
        }
        // Without a revocation endpoint nothing is sent.
        record.revocationEndpoint = nil
        let none = FakeTransport([.failed("unused")])
        #expect(try ProviderRegistry.provider(for: record, transport: none).signOut(record) == false)
        #expect(none.sent.isEmpty)
    }

    @Test func badSettingsFailBeforeAnyRequest() {
        let transport = FakeTransport([granted])
        #expect(throws: VaultError.self) {
            try ProviderRegistry.provider(for: .oauth2(OAuth2Settings(tokenEndpoint: "http://auth.example.com/token")), transport: transport)
        }
        #expect(transport.sent.isEmpty)
    }
}
