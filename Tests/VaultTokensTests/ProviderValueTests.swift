import Foundation
import Testing
import VaultCore
@testable import VaultTokens

/// Every value a provider (or an imported session) hands vault is checked before use or storage;
/// a bad one is an error naming the field, and the stored session stays as it was.
struct ProviderValueTests {
    let key = try! ItemKey(service: "api.example.com", account: "alice")

    func parse(_ extra: [String: Any]) throws(ProviderValue.Problem) -> TokenGrant? {
        var object: [String: Any] = ["access_token": "AT1", "refresh_token": "RT1", "expires_in": 3600]
        for (name, value) in extra { object[name] = value }
        return try TokenGrant.parse(object)
    }

    func problem(_ extra: [String: Any]) -> ProviderValue.Problem? {
        do { _ = try parse(extra); return nil } catch { return error }
    }

    /// JSON as a provider would send it (numbers JSONSerialization reads, not Swift literals).
    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func lifetimesAreFiniteNumbersWithinRange() throws {
        #expect(try parse(["expires_in": "3600"])?.expiresIn == 3600, "Firebase's string lifetime")
        #expect(try parse(json(#"{"access_token":"A","expires_in":3600.5}"#))?.expiresIn == 3600.5)
        for bad: Any in ["1e20", "inf", "nan", "-5", " 60", "0x10", "", 1e20, -1e300, -5, Double.infinity, Double.nan, true] {
            #expect(problem(["expires_in": bad])?.field == "expires_in", "\(bad)")
        }
        #expect(problem(json(#"{"expires_in":true}"#))?.field == "expires_in", "a JSON boolean is not 1 second")
        #expect(problem(json(#"{"expires_in":1e20}"#))?.field == "expires_in")
        #expect(problem(["expires_at": 1e20])?.field == "expires_at")
        #expect(problem(["expires_at": -1])?.field == "expires_at")
        #expect(try parse(["expires_at": 2_000_000_000])?.expiresAt == 2_000_000_000)
    }

    @Test func tokensAreB64TokensWithinTheSizeLimit() throws {
        for bad in ["x; echo INJECTED 1>&2; #", "a b", "line\nbreak", "\u{1b}]0;title\u{7}", "tok\"en", "a=b", "=abc", "", "ü",
                    String(repeating: "a", count: ProviderValue.maximumTokenLength + 1)] {
            #expect(problem(["access_token": bad])?.field == "access_token", "\(bad.prefix(20))")
            #expect(problem(["refresh_token": bad])?.field == "refresh_token", "\(bad.prefix(20))")
        }
        for good in ["abc", "a.b-c_d~e+f/g", "YWJj==", "eyJhbGciOi.eyJzdWIi.sig"] {
            #expect(try parse(["access_token": good])?.accessToken == good)
        }
        #expect(problem(["refresh_token": 42])?.field == "refresh_token")
        #expect(problem(["token_type": "Bearer x"])?.field == "token_type")
        #expect(problem(["user": ["email": "a@example.com\u{1b}[2J"]])?.field == "user.email")
        #expect(problem(["user": ["id": String(repeating: "u", count: 2000)]])?.field == "user.id")
        #expect(problem(["user": "not an object"])?.field == "user")
        // A problem names the field and never carries the value.
        #expect(problem(["access_token": "secret value"])?.description == "'access_token' has characters outside RFC 6750's b64token set")
    }

    @Test func providersTurnBadValuesIntoMalformedOutcomesNamingTheField() throws {
        let record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token"))
        let oauth = try ProviderRegistry.provider(for: record, transport: FakeTransport([
            FakeTransport.json(200, ["access_token": "AT", "expires_in": "1e20"])])).refresh(record, refreshToken: "RT")
        guard case .malformed(let message) = oauth else { Issue.record("\(oauth)"); return }
        #expect(message.contains("'expires_in'"))

        var supabase = SessionRecord.beforeSignIn(
            provider: .supabase, tokenEndpoint: "https://abc.supabase.co/auth/v1/token", projectURL: "https://abc.supabase.co", apiKey: "k")
        supabase.refreshToken = "RT"
        let bad = FakeTransport([FakeTransport.json(200, ["access_token": "x; rm -rf ~", "refresh_token": "RT2"])])
        #expect(try ProviderRegistry.provider(for: supabase, transport: bad).refresh(supabase, refreshToken: "RT").isMalformed)

        var firebase = SessionRecord.beforeSignIn(provider: .firebase, tokenEndpoint: FirebaseProvider.defaultTokenEndpoint(projectURL: nil)!)
        firebase.apiKey = "web-key"
        let nan = FakeTransport([FakeTransport.json(200, ["access_token": "ID", "expires_in": "nan", "refresh_token": "RT2"])])
        #expect(try ProviderRegistry.provider(for: firebase, transport: nan).refresh(firebase, refreshToken: "RT").isMalformed)
        let signIn = FakeTransport([FakeTransport.json(200, ["idToken": "ID", "refreshToken": "RT\n", "expiresIn": "3600"])])
        #expect(throws: VaultError.self) {
            try ProviderRegistry.provider(for: .firebase(FirebaseSettings(apiKey: "k", emulatorURL: nil)), transport: signIn)
                .signIn(user: "a@example.com", password: SecretBytes(utf8: "pw"))
        }
    }

    @Test func aBadRefreshAnswerKeepsTheStoredSessionAsItWas() throws {
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token", clientID: "cli"))
        record.accessToken = "AT-old"
        record.refreshToken = "RT-old"
        record.expiresAt = Date().timeIntervalSince1970 - 10
        for answer in [FakeTransport.json(200, ["access_token": "AT-new", "expires_in": "inf", "refresh_token": "RT-new"]),
                       FakeTransport.json(200, ["access_token": "AT new", "refresh_token": "RT-new"]),
                       FakeTransport.json(200, ["access_token": "AT-new", "refresh_token": "RT\u{1b}new"]),
                       FakeTransport.json(403, ["message": "blocked by proxy"]), FakeTransport.json(401, ["error": "invalid_client"]),
                       FakeTransport.text(307, ""), .refused("the answer is larger than 1024 KiB")] {
            let store = SessionRefresherTests.Store(key, record)
            #expect(throws: VaultError.self) { try store.refresher(FakeTransport([answer])).token(for: key, minTTL: 30) }
            #expect(store.records.withLock { $0[key] } == record, "\(answer)")
        }
    }

    @Test func deviceCodesAreChecked() throws {
        let good: [String: Any] = ["device_code": "DC", "user_code": "ABCD-EFGH", "verification_uri": "https://example.com/device",
                                   "expires_in": 600, "interval": 5]
        #expect(try DeviceAuthorization.parse(good).interval == 5)
        func field(_ name: String, _ value: Any) -> String? {
            var object = good
            object[name] = value
            do { _ = try DeviceAuthorization.parse(object); return nil } catch { return error.field }
        }
        #expect(field("interval", 5000) == "interval")
        #expect(field("interval", -1) == "interval")
        #expect(field("interval", "inf") == "interval")
        #expect(field("expires_in", 1e20) == "expires_in")
        #expect(field("expires_in", 0) == "expires_in")
        #expect(field("user_code", "AB\u{1b}]0;pwned\u{7}") == "user_code")
        #expect(field("verification_uri", "javascript:alert(1)") == "verification_uri")
        #expect(field("verification_uri_complete", "file:///etc/passwd") == "verification_uri_complete")
        #expect(field("device_code", 17) == "device_code")
        #expect(throws: VaultError.self) {
            try DeviceAuthorization.start(client: TokenEndpointClient(http: FakeTransport([FakeTransport.json(200, ["device_code": "DC", "user_code": "U",
                "verification_uri": "https://example.com/d", "interval": 5000])])), endpoint: "https://example.com/device", clientID: "c", clientSecret: nil, scope: nil)
        }
    }

    @Test func onlyEachProvidersDocumentedCodesMeanSignInAgain() throws {
        var supabase = SessionRecord.beforeSignIn(
            provider: .supabase, tokenEndpoint: "https://abc.supabase.co/auth/v1/token", projectURL: "https://abc.supabase.co", apiKey: "k")
        supabase.refreshToken = "RT"
        func supabaseOutcome(_ answer: HTTPClient.Result) throws -> TokenOutcome {
            try ProviderRegistry.provider(for: supabase, transport: FakeTransport([answer])).refresh(supabase, refreshToken: "RT")
        }
        for code in SupabaseProvider.signInAgainCodes {
            #expect(try supabaseOutcome(FakeTransport.json(400, ["code": code, "message": "x"])).rejectedCode == code)
        }
        #expect(try supabaseOutcome(FakeTransport.json(403, ["message": "Forbidden by the corporate proxy"])).isMalformed)
        #expect(try supabaseOutcome(FakeTransport.json(400, ["code": "validation_failed", "message": "x"])).isMalformed)
        #expect(try supabaseOutcome(FakeTransport.text(401, "")).isMalformed)

        var firebase = SessionRecord.beforeSignIn(provider: .firebase, tokenEndpoint: FirebaseProvider.defaultTokenEndpoint(projectURL: nil)!)
        firebase.apiKey = "web-key"
        func firebaseOutcome(_ answer: HTTPClient.Result) throws -> TokenOutcome {
            try ProviderRegistry.provider(for: firebase, transport: FakeTransport([answer])).refresh(firebase, refreshToken: "RT")
        }
        for code in FirebaseProvider.signInAgainCodes {
            #expect(try firebaseOutcome(FakeTransport.json(400, ["error": ["code": 400, "message": code]])).rejectedCode == code)
        }
        #expect(try firebaseOutcome(FakeTransport.json(403, ["error": ["code": 403, "message": "PERMISSION_DENIED"]])).isMalformed)
        #expect(try firebaseOutcome(FakeTransport.json(403, ["blocked": true])).isMalformed)
    }

    @Test func redirectsAndOversizedAnswersAreErrorsNamingThem() throws {
        let record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token"))
        let redirect = try ProviderRegistry.provider(for: record, transport: FakeTransport([
            FakeTransport.json(307, ["access_token": "AT"])])).refresh(record, refreshToken: "RT")
        guard case .malformed(let message) = redirect else { Issue.record("\(redirect)"); return }
        #expect(message.contains("HTTP 307, a redirect"))
        #expect(try ProviderRegistry.provider(for: record, transport: FakeTransport([.refused("too large")])).refresh(record, refreshToken: "RT").isMalformed)
    }

    @Test func providerTextIsOneLineWithoutControlCharacters() throws {
        #expect(ProviderValue.sanitized("bad\u{1b}]0;owned\u{7}\u{1b}[2J grant\r\nnow\u{202e}!") == "bad ]0;owned [2J grant now !")
        #expect(ProviderValue.sanitized(String(repeating: "x", count: 500)).count == 201)
        let record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token"))
        let outcome = try ProviderRegistry.provider(for: record, transport: FakeTransport([
            FakeTransport.json(400, ["error": "invalid_grant", "error_description": "gone\u{1b}[2J\nreally"])])).refresh(record, refreshToken: "RT")
        guard case .rejected(_, let message) = outcome else { Issue.record("\(outcome)"); return }
        #expect(message == "invalid_grant: gone [2J really")
    }

    @Test func aSessionIsNeverEncodedEmptyOrPartialAndBadStoredOnesAreReported() throws {
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token"))
        record.accessToken = "AT"
        record.refreshToken = "RT"
        for bad in [Double.infinity, Double.nan, 1e20, -1e300] {
            var broken = record
            broken.expiresAt = bad
            #expect(throws: VaultError.self) { try broken.encoded() }
        }
        // Stored before these checks: decoding reports it, naming the field, rather than trusting it.
        let old = SecretBytes(Array(#"{"token_endpoint":"https://auth.example.com/token","access_token":"AT","refresh_token":"RT","expires_at":1e20}"#.utf8))
        do {
            _ = try SessionRecord.decoding(old, key: key)
            Issue.record("expected an error")
        } catch let error as VaultError {
            #expect(error.code == .badRequest && error.description.contains("'expires_at'"))
        }
        #expect(throws: VaultError.self) {
            try SessionRecord.importing(Array(#"{"token_endpoint":"https://a.example/t","access_token":"AT","expires_in":"1e20"}"#.utf8), now: 1_700_000_000)
        }
        #expect(throws: VaultError.self) {
            try SessionRecord.importing(Array(#"{"token_endpoint":"https://a.example/t","access_token":"x; echo hi"}"#.utf8), now: 1_700_000_000)
        }
        #expect(Timestamp.rfc3339(checkedSeconds: 1e20) == nil && Timestamp.rfc3339(checkedSeconds: .nan) == nil)
        #expect(Timestamp.rfc3339(checkedSeconds: 2_000_000_000) == "2033-05-18T03:33:20.000Z")
    }
}
