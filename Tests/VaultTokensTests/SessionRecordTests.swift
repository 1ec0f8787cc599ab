import Foundation
import Testing
import VaultCore
@testable import VaultTokens

/// The stored session JSON stays compatible: old records decode, new ones keep the key names.
struct SessionRecordTests {
    func decode(_ json: String) throws -> SessionRecord {
        try SessionRecord.decoding(SecretBytes(utf8: json), key: ItemKey(service: "s", account: "a"))
    }

    @Test func oldRecordsDecodeWithTheirDefaults() throws {
        // The first format: no version, no provider (oauth2), no token_type.
        let oauth = try decode(#"{"token_endpoint":"https://auth.example.com/token","access_token":"AT","refresh_token":"RT","expires_at":1700000000}"#)
        #expect(oauth.provider == .oauth2 && oauth.version == 1 && oauth.tokenType == "Bearer" && !oauth.needsSignIn)
        #expect(oauth.refreshToken == "RT" && oauth.expiresAt == 1_700_000_000)
        // Supabase and Firebase records without token_endpoint get their provider's.
        let supabase = try decode(#"{"provider":"supabase","project_url":"https://abc.supabase.co","api_key":"k","access_token":"AT"}"#)
        #expect(supabase.provider == .supabase && supabase.tokenEndpoint == "https://abc.supabase.co/auth/v1/token")
        let firebase = try decode(#"{"provider":"firebase","api_key":"k","access_token":"AT"}"#)
        #expect(firebase.tokenEndpoint == "https://securetoken.googleapis.com/v1/token")
        let emulated = try decode(#"{"provider":"firebase","api_key":"k","project_url":"http://127.0.0.1:9099","access_token":"AT"}"#)
        #expect(emulated.tokenEndpoint == "http://127.0.0.1:9099/securetoken.googleapis.com/v1/token")
        // An oauth2 record must name its endpoint.
        #expect(throws: VaultError.self) { try decode(#"{"provider":"oauth2","access_token":"AT"}"#) }
    }

    @Test func newRecordsEncodeWithTheSameKeysAndValues() throws {
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(
            tokenEndpoint: "https://auth.example.com/token", clientID: "cli", clientSecret: "sec", scope: "read",
            revocationEndpoint: "https://auth.example.com/revoke"))
        record.projectURL = "https://p"
        record.apiKey = "k"
        record.accessToken = "AT"
        record.refreshToken = "RT"
        record.expiresAt = 1_700_000_000.5
        record.userID = "u"
        record.email = "e@example.com"
        record.needsSignIn = true
        let bytes = try record.encoded().withUnsafeBytes { Data($0) }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == #"{"access_token":"AT","api_key":"k","client_id":"cli","client_secret":"sec","email":"e@example.com","expires_at":1700000000.5,"needs_sign_in":true,"project_url":"https:\/\/p","provider":"oauth2","refresh_token":"RT","revocation_endpoint":"https:\/\/auth.example.com\/revoke","scope":"read","token_endpoint":"https:\/\/auth.example.com\/token","token_type":"Bearer","user_id":"u","version":1}"#)
        #expect(try decode(text) == record)
        var supabase = SessionRecord.beforeSignIn(provider: .supabase, tokenEndpoint: "https://abc.supabase.co/auth/v1/token")
        supabase.projectURL = "https://abc.supabase.co"
        #expect(String(decoding: try supabase.encoded().withUnsafeBytes { Data($0) }, as: UTF8.self).contains(#""provider":"supabase""#))
    }

    func importing(_ json: String, _ settings: [String: String] = [:]) throws -> SessionRecord {
        try SessionRecord.importing(Array(json.utf8), now: 1_700_000_000, settings: settings)
    }

    @Test func importingChecksWhatEachProviderNeeds() throws {
        let token = try importing(#"{"token_endpoint":"https://auth.example.com/token","access_token":"AT","expires_in":"60"}"#)
        #expect(token.provider == .oauth2 && token.expiresAt == 1_700_000_060)
        #expect(throws: VaultError.invalidInput("provider 'github' is not supported; use oauth2, supabase or firebase")) {
            try importing(#"{"provider":"github","token_endpoint":"https://auth.example.com/token","access_token":"AT"}"#)
        }
        #expect(throws: VaultError.invalidInput("a supabase session needs project_url and api_key")) {
            try importing(#"{"access_token":"AT","refresh_token":"RT"}"#, ["provider": "supabase", "project_url": "https://abc.supabase.co"])
        }
        #expect(throws: VaultError.invalidInput("a firebase session needs api_key")) {
            try importing(#"{"provider":"firebase","access_token":"AT"}"#)
        }
        // A Supabase session object: tokens and the user, the rest from settings.
        let supabase = try importing(
            #"{"access_token":"AT","refresh_token":"RT","expires_in":3600,"user":{"id":"u-1","email":"a@example.com"}}"#,
            ["provider": "supabase", "project_url": "https://abc.supabase.co", "api_key": "k"])
        #expect(supabase.provider == .supabase && supabase.userID == "u-1" && supabase.email == "a@example.com" && supabase.expiresAt == 1_700_003_600)
        #expect(throws: VaultError.invalidInput("the session JSON is not usable: it is not one JSON object")) { try importing("{") }
        // A value of the wrong type is named, not taken for a missing token or endpoint.
        #expect(throws: VaultError.invalidInput("the session JSON is not usable: 'refresh_token' has the wrong type")) {
            try importing(#"{"token_endpoint":"https://auth.example.com/token","access_token":"AT","refresh_token":7}"#)
        }
    }

    /// What requests-oauthlib and authlib keep: `scope` as a list, `expires_at` as a float beside
    /// `expires_in`, fields of their own. The list becomes RFC 6749's space-separated string.
    @Test func tokensAsOAuthClientLibrariesKeepThemImport() throws {
        let oauthlib = try importing(
            #"{"access_token":"AT","token_type":"Bearer","expires_in":3600,"refresh_token":"RT","scope":["read","write"],"expires_at":1700003600.25}"#,
            ["token_endpoint": "https://auth.example.com/token", "client_id": "c"])
        #expect(oauthlib.scope == "read write" && oauthlib.expiresAt == 1_700_003_600.25 && oauthlib.refreshToken == "RT")
        let authlib = try importing(
            #"{"access_token":"AT","token_type":"bearer","expires_in":3600,"refresh_token":"RT","scope":"read write","expires_at":1700003600,"id_token":"x"}"#,
            ["token_endpoint": "https://auth.example.com/token"])
        #expect(authlib.scope == "read write" && authlib.expiresAt == 1_700_003_600)
        #expect(throws: VaultError.invalidInput("the session JSON is not usable: 'scope' is a list of something other than strings")) {
            try importing(#"{"access_token":"AT","scope":["read",7]}"#, ["token_endpoint": "https://auth.example.com/token"])
        }
    }
}
