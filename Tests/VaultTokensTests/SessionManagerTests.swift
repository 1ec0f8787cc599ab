import Foundation
import Synchronization
import Testing
import VaultCore
@testable import VaultTokens
import VaultSystem

/// SessionManager on in-memory closures: where sessions are stored, what logout keeps, and that
/// describe reads a session only when its item changed.
struct SessionManagerTests {
    final class Items: Sendable {
        let records = AdaptiveLock<[ItemKey: (SessionRecord, ItemInfo)]>([:])
        let loads = AdaptiveLock(0)
        let clock = AdaptiveLock<Int64>(1)

        func manager(_ transport: FakeTransport) -> SessionManager {
            let refresher = SessionRefresher(
                transport: transport, retryDelays: [],
                load: { key in
                    self.loads.withLock { $0 += 1 }
                    guard let record = self.records.withLock({ $0[key]?.0 }) else { throw VaultError.notFound(key) }
                    return record
                },
                save: { key, record in _ = self.put(key, record, label: nil) },
                log: { _, _ in })
            return SessionManager(
                refresher: refresher, save: { key, record, label in self.put(key, record, label: label) },
                delete: { key in self.records.withLock { _ = $0.removeValue(forKey: key) } })
        }

        func put(_ key: ItemKey, _ record: SessionRecord, label: String?) -> ItemInfo {
            let now = clock.withLock { $0 += 1; return $0 }
            let info = ItemInfo(key: key, label: label ?? "", comment: "", kind: .session, created: 1, modified: now)
            records.withLock { $0[key] = (record, info) }
            return info
        }

        func info(_ key: ItemKey) -> ItemInfo? { records.withLock { $0[key]?.1 } }
    }

    let supabase = ProviderSettings.supabase(SupabaseSettings(projectURL: "https://abc.supabase.co", apiKey: "k"))
    let session = FakeTransport.json(200, ["access_token": "AT", "expires_at": 2_000_000_000, "refresh_token": "RT", "user": ["id": "u", "email": "a@example.com"]])

    @Test func signInStoresUnderTheProvidersDefaultServiceAndTheUser() throws {
        let items = Items()
        let result = try items.manager(FakeTransport([session])).signIn(
            supabase, user: "a@example.com", password: SecretBytes(utf8: "pw"), service: nil, account: nil, signingUp: false)
        #expect(result.key == (try ItemKey(service: "abc.supabase.co", account: "a@example.com")))
        #expect(result.info?.label == "abc.supabase.co session (a@example.com)")
        #expect(items.records.withLock { $0[result.key]?.0.refreshToken } == "RT")
    }

    @Test func providersWithoutADefaultServiceNeedOneBeforeAnyRequest() throws {
        let transport = FakeTransport([session])
        #expect(throws: VaultError.invalidInput("missing field 'service'")) {
            try Items().manager(transport).signIn(
                .oauth2(OAuth2Settings(tokenEndpoint: "https://auth.example.com/token")), user: "a", password: SecretBytes(utf8: "p"),
                service: "", account: nil, signingUp: false)
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func aPendingSignUpStoresNothing() throws {
        let items = Items()
        let result = try items.manager(FakeTransport([FakeTransport.json(200, ["id": "u"])])).signIn(
            supabase, user: "b@example.com", password: SecretBytes(utf8: "pw"), service: "app", account: nil, signingUp: true)
        #expect(result.info == nil && result.message?.contains("confirmation link") == true)
        #expect(items.records.withLock { $0.isEmpty })
    }

    @Test func logoutKeepsTheSessionWhenTheServerCannotBeReached() throws {
        let items = Items()
        let key = try ItemKey(service: "app", account: "a")
        var record = SessionRecord.beforeSignIn(provider: .supabase, tokenEndpoint: "https://abc.supabase.co/auth/v1/token")
        record.projectURL = "https://abc.supabase.co"
        record.apiKey = "k"
        _ = items.put(key, record, label: nil)
        #expect(throws: VaultError.self) { try items.manager(FakeTransport([.failed("down")])).logout(key) }
        #expect(items.info(key) != nil)
        // Answers that are no confirmation keep it too: a proxy's 403, an expired token's bad_jwt, HTML.
        for answer in [FakeTransport.json(403, ["message": "proxy says no"]), FakeTransport.json(401, ["code": "bad_jwt", "message": "x"]),
                       FakeTransport.text(200, "<html>"), FakeTransport.text(302, "")] {
            #expect(throws: VaultError.self) { try items.manager(FakeTransport([answer])).logout(key) }
            #expect(items.info(key) != nil, "\(answer)")
        }
        #expect(try items.manager(FakeTransport([.response(status: 204, body: Data())])).logout(key) == .endedOnServer)
        #expect(items.info(key) == nil)
    }

    @Test func oauth2LogoutNeedsTheRevocationEndpointsConfirmationOrForget() throws {
        let items = Items()
        let key = try ItemKey(service: "app", account: "a")
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(
            tokenEndpoint: "https://auth.example.com/token", clientID: "c", clientSecret: "s", revocationEndpoint: "https://auth.example.com/revoke"))
        record.accessToken = "AT"
        record.refreshToken = "RT"
        _ = items.put(key, record, label: nil)
        for answer in [FakeTransport.json(401, ["error": "invalid_client"]), FakeTransport.text(200, "not json"), FakeTransport.text(503, "")] {
            #expect(throws: VaultError.self) { try items.manager(FakeTransport([answer])).logout(key) }
            #expect(items.info(key) != nil, "\(answer)")
        }
        let none = FakeTransport([.failed("unused")])
        try items.manager(none).forget(key)
        #expect(items.info(key) == nil && none.sent.isEmpty)
    }

    @Test func describeReadsASessionOnlyWhenItsItemChanged() throws {
        let items = Items()
        let manager = items.manager(FakeTransport([session]))
        let key = try ItemKey(service: "app", account: "a")
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token"))
        record.userID = "alice"
        record.expiresAt = 1_700_000_000
        _ = items.put(key, record, label: nil)
        let stored = try #require(items.info(key))
        let first = try #require(manager.describe(stored))
        #expect(first == SessionManager.Details(provider: .oauth2, user: "alice", expiresAt: 1_700_000_000, needsSignIn: false))
        _ = manager.describe(try #require(items.info(key)))
        #expect(items.loads.withLock { $0 } == 1)
        record.needsSignIn = true
        _ = items.put(key, record, label: nil)
        #expect(manager.describe(try #require(items.info(key)))?.needsSignIn == true)
        #expect(items.loads.withLock { $0 } == 2)
        // Plain secrets are not sessions.
        let plain = ItemInfo(key: key, label: "", comment: "", kind: .secret, created: 1, modified: 1)
        #expect(manager.describe(plain) == nil)
    }

    @Test func importedSessionsAreDescribedWithoutAnotherRead() throws {
        let items = Items()
        let manager = items.manager(FakeTransport([session]))
        let key = try ItemKey(service: "app", account: "a")
        let info = try manager.importSession(
            key, json: Array(#"{"access_token":"AT","refresh_token":"RT","user":{"email":"a@example.com"}}"#.utf8),
            defaults: SessionDefaults(provider: .supabase, url: "https://abc.supabase.co", apiKey: "k"), now: 1000)
        #expect(manager.describe(info)?.user == "a@example.com" && items.loads.withLock { $0 } == 0)
    }
}
