import Foundation
import Synchronization
import Testing
import VaultCore
@testable import VaultTokens
import VaultSystem

/// The single-flight refresh against a scripted transport and an in-memory store.
struct SessionRefresherTests {
    /// An in-memory session store that logs every save, shared with the callers' own log.
    final class Store: Sendable {
        let records: AdaptiveLock<[ItemKey: SessionRecord]>
        let events = AdaptiveLock<[String]>([])
        init(_ key: ItemKey, _ record: SessionRecord) { records = AdaptiveLock([key: record]) }

        func refresher(_ transport: FakeTransport, retryDelays: [Double] = []) -> SessionRefresher {
            SessionRefresher(
                transport: transport, retryDelays: retryDelays,
                load: { key in
                    guard let record = self.records.withLock({ $0[key] }) else { throw VaultError.notFound(key) }
                    return record
                },
                save: { key, record in
                    self.records.withLock { $0[key] = record }
                    self.events.withLock { $0.append("saved \(record.refreshToken ?? "-")") }
                },
                log: { _, _ in })
        }
    }

    let key = try! ItemKey(service: "api.example.com", account: "alice")

    func expiring(in seconds: Double) -> SessionRecord {
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token", clientID: "cli"))
        record.accessToken = "AT-old"
        record.refreshToken = "RT-old"
        record.expiresAt = Date().timeIntervalSince1970 + seconds
        return record
    }

    @Test func concurrentCallersShareOneRefreshAndTheRotatedTokenIsSavedFirst() throws {
        let store = Store(key, expiring(in: 5))
        let transport = FakeTransport(
            [FakeTransport.json(200, ["access_token": "AT-new", "expires_in": 3600, "refresh_token": "RT-new"])], delay: 0.3)
        let refresher = store.refresher(transport)
        let callers = 8
        let results = AdaptiveLock<[Result<SessionRefresher.Token, Error>]>([])
        let group = DispatchGroup()
        for _ in 0..<callers {
            group.enter()
            Thread.detachNewThread { [key] in
                let result = Result { try refresher.token(for: key, minTTL: 60) }
                if case .success(let token) = result { store.events.withLock { $0.append("got \(token.accessToken)") } }
                results.withLock { $0.append(result) }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(transport.sent.count == 1)
        #expect(transport.sent.first?.text == "grant_type=refresh_token&refresh_token=RT-old&client_id=cli")
        let tokens = try results.withLock { try $0.map { try $0.get().accessToken } }
        #expect(tokens == Array(repeating: "AT-new", count: callers))
        let events = store.events.withLock { $0 }
        #expect(events.first == "saved RT-new")
        #expect(events.filter { $0 == "saved RT-new" }.count == 1 && events.filter { $0 == "got AT-new" }.count == callers)
        #expect(store.records.withLock { $0[key]?.refreshToken } == "RT-new")
    }

    @Test func aFreshTokenIsServedWithoutARequest() throws {
        let store = Store(key, expiring(in: 3600))
        let transport = FakeTransport([.failed("must not be called")])
        #expect(try store.refresher(transport).token(for: key, minTTL: 60).accessToken == "AT-old")
        #expect(transport.sent.isEmpty)
    }

    @Test func aRejectedRefreshMarksTheSessionAndKeepsIt() throws {
        let store = Store(key, expiring(in: -10))
        let transport = FakeTransport([FakeTransport.json(400, ["error": "invalid_grant"])])
        let refresher = store.refresher(transport)
        #expect(throws: VaultError.self) { try refresher.token(for: key, minTTL: 60) }
        let kept = try #require(store.records.withLock { $0[key] })
        #expect(kept.needsSignIn && kept.refreshToken == "RT-old" && kept.accessToken == "AT-old")
        // From now on it asks for a sign-in without asking the server again.
        do {
            _ = try refresher.token(for: key, minTTL: 60)
            Issue.record("expected signInRequired")
        } catch let VaultError.signInRequired(message) {
            #expect(message.contains("needs a new sign-in") && !message.contains("RT-old"))
        }
        #expect(transport.sent.count == 1)
    }

    @Test func temporaryFailuresAreRetriedThenTheStillValidTokenIsServed() throws {
        let store = Store(key, expiring(in: 30))
        let transport = FakeTransport([FakeTransport.text(503, ""), FakeTransport.text(429, ""), .failed("reset")])
        let token = try store.refresher(transport, retryDelays: [0, 0]).token(for: key, minTTL: 60)
        #expect(token.accessToken == "AT-old" && transport.sent.count == 3)
        #expect(store.events.withLock { $0.isEmpty })
    }

    @Test func anExpiredTokenWithAnUnreachableServerIsAClearErrorAndUnchanged() throws {
        let record = expiring(in: -10)
        let store = Store(key, record)
        let transport = FakeTransport([FakeTransport.text(200, "<html>captive portal</html>")])
        do {
            _ = try store.refresher(transport).token(for: key, minTTL: 60)
            Issue.record("expected an error")
        } catch let VaultError.unavailable(message) {
            #expect(message.contains("could not refresh") && message.contains("unchanged"))
        }
        #expect(store.records.withLock { $0[key] } == record)
    }
}
