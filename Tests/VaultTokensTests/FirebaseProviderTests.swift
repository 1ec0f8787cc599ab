import Foundation
import Testing
import VaultCore
@testable import VaultTokens

/// Firebase Auth: identitytoolkit JSON for sign-in and sign-up, securetoken form posts for
/// refresh, `{"error":{"message":"CODE : detail"}}` errors.
struct FirebaseProviderTests {
    let settings = ProviderSettings.firebase(FirebaseSettings(apiKey: "web-key", emulatorURL: "http://127.0.0.1:9099/"))
    let account: [String: Any] = ["idToken": "ID1", "refreshToken": "RT1", "expiresIn": "3600", "localId": "uid-1", "email": "a@example.com"]

    func provider(_ transport: FakeTransport) throws -> any SignInProvider {
        try ProviderRegistry.provider(for: settings, transport: transport)
    }

    func stored() -> SessionRecord {
        var record = SessionRecord.beforeSignIn(provider: .firebase, tokenEndpoint: FirebaseProvider.defaultTokenEndpoint(projectURL: nil)!)
        record.apiKey = "web-key"
        return record
    }

    @Test func signInAndSignUpPostJSONToIdentityToolkit() throws {
        let transport = FakeTransport([FakeTransport.json(200, account)])
        let firebase = try provider(transport)
        #expect(firebase.defaultService == nil)
        let record = try firebase.signIn(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        let request = try #require(transport.sent.first)
        #expect(request.method == "POST")
        #expect(request.url == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=web-key")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.json as NSDictionary == ["email": "a@example.com", "password": "pw", "returnSecureToken": true] as NSDictionary)
        #expect(record.provider == .firebase && record.accessToken == "ID1" && record.refreshToken == "RT1" && record.userID == "uid-1")
        #expect(record.projectURL == "http://127.0.0.1:9099" && record.apiKey == "web-key")
        #expect(record.tokenEndpoint == "http://127.0.0.1:9099/securetoken.googleapis.com/v1/token")
        _ = try firebase.signUp(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        #expect(transport.sent.last?.url == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/accounts:signUp?key=web-key")
    }

    @Test func refreshIsAFormPostToSecureToken() throws {
        let transport = FakeTransport([FakeTransport.json(200, ["access_token": "ID2", "expires_in": "3600", "refresh_token": "RT2", "user_id": "uid-1"])])
        let record = stored()
        let outcome = try ProviderRegistry.provider(for: record, transport: transport).refresh(record, refreshToken: "RT/1")
        #expect(outcome.grant?.accessToken == "ID2" && outcome.grant?.userID == "uid-1" && outcome.grant?.expiresIn == 3600)
        #expect(transport.sent.first?.url == "https://securetoken.googleapis.com/v1/token?key=web-key")
        #expect(transport.sent.first?.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(transport.sent.first?.text == "grant_type=refresh_token&refresh_token=RT%2F1")
    }

    @Test func answersAreClassified() throws {
        let record = stored()
        func outcome(_ answer: HTTPClient.Result) throws -> TokenOutcome {
            try ProviderRegistry.provider(for: record, transport: FakeTransport([answer])).refresh(record, refreshToken: "RT")
        }
        func error(_ message: String) -> HTTPClient.Result { FakeTransport.json(400, ["error": ["code": 400, "message": message]]) }
        #expect(try outcome(error("INVALID_REFRESH_TOKEN")).rejectedCode == "INVALID_REFRESH_TOKEN")
        #expect(try outcome(error("TOKEN_EXPIRED")).rejectedCode == "TOKEN_EXPIRED")
        #expect(try outcome(error("TOO_MANY_ATTEMPTS_TRY_LATER")).isTemporary)
        #expect(try outcome(error("MISSING_REFRESH_TOKEN")).isMalformed)
        #expect(try outcome(FakeTransport.text(503, "")).isTemporary)
        #expect(try outcome(FakeTransport.text(429, "")).isTemporary)
        #expect(try outcome(.failed("unreachable")).isTemporary)
        #expect(try outcome(FakeTransport.text(200, "<html/>")).isMalformed)
        #expect(try outcome(FakeTransport.json(200, ["user_id": "u"])).isMalformed)
    }

    @Test func signInErrorsAreSentences() throws {
        let weak = FakeTransport([FakeTransport.json(400, ["error": ["message": "WEAK_PASSWORD : Password should be at least 6 characters"]])])
        #expect(throws: VaultError.permissionDenied("could not sign up: the password is too weak: Password should be at least 6 characters")) {
            try provider(weak).signUp(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        }
        let missing = FakeTransport([FakeTransport.json(200, ["idToken": "ID"])])
        #expect(throws: VaultError.unavailable("could not sign in: Firebase's answer has no idToken or refreshToken")) {
            try provider(missing).signIn(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        }
    }

    @Test func passwordResetAndSignOut() throws {
        let transport = FakeTransport([FakeTransport.json(200, ["email": "a@example.com"])])
        try provider(transport).sendPasswordReset(email: "a@example.com")
        #expect(transport.sent.first?.url == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=web-key")
        #expect(transport.sent.first?.json as NSDictionary? == ["requestType": "PASSWORD_RESET", "email": "a@example.com"] as NSDictionary)
        // No server-side sign-out in Firebase's REST API: nothing is sent.
        let none = FakeTransport([.failed("unused")])
        try ProviderRegistry.provider(for: stored(), transport: none).signOut(stored())
        #expect(none.sent.isEmpty)
    }
}
