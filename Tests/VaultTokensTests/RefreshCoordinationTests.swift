import Foundation
import Synchronization
import Testing
import VaultCore
@testable import VaultTokens
import VaultSystem

/// What a refresh does when others act on the same session meanwhile (compare-and-swap, the lock
/// shared by refreshers of one store), and its limits: no refresh storms, a total time budget.
struct RefreshCoordinationTests {
    /// One stored session; `update` is atomic, as the daemon's store queue makes it.
    final class Store: Sendable {
        let record: AdaptiveLock<SessionRecord>
        init(_ record: SessionRecord) { self.record = AdaptiveLock(record) }

        func refresher(_ transport: any HTTPTransport, lock: any RefreshLock = ProcessLocalRefreshLock(), retryDelays: [Double] = [],
                       budget: Double = SessionRefresher.defaultBudget, attemptTimeout: Double = 11) -> SessionRefresher {
            SessionRefresher(
                transport: transport, retryDelays: retryDelays, budget: budget, attemptTimeout: attemptTimeout, lock: lock,
                load: { _ in self.record.withLock { $0 } },
                update: { _, change in
                    try self.record.withLock { record in
                        if let changed = try change(record) { record = changed }
                        return record
                    }
                },
                log: { _, _ in })
        }
    }

    /// Runs `body` (a stand-in for something else happening) when a request is sent, then answers.
    final class DuringRequest: HTTPTransport {
        let inner: FakeTransport
        let body: @Sendable (Int) -> Void
        init(_ inner: FakeTransport, _ body: @escaping @Sendable (Int) -> Void) {
            self.inner = inner
            self.body = body
        }

        func send(_ method: String, _ url: URL, headers: [String: String], body payload: Data?) -> HTTPClient.Result {
            body(inner.sent.count)
            return inner.send(method, url, headers: headers, body: payload)
        }
    }

    let key = try! ItemKey(service: "api.example.com", account: "alice")

    func session(_ access: String, _ refresh: String, expiringIn seconds: Double) -> SessionRecord {
        var record = SessionRecord.beforeSignIn(oauth2: OAuth2Settings(tokenEndpoint: "https://auth.example.com/token", clientID: "cli"))
        record.accessToken = access
        record.refreshToken = refresh
        record.expiresAt = Date().timeIntervalSince1970 + seconds
        return record
    }

    static func granted(_ access: String, _ refresh: String?, lifetime: Double = 3600) -> HTTPClient.Result {
        var body: [String: Any] = ["access_token": access, "token_type": "Bearer", "expires_in": lifetime]
        body["refresh_token"] = refresh
        return FakeTransport.json(200, body)
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "/refresh-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// Two vaultd on one vault file: two refreshers, each with its own in-process single flight,
    /// sharing the store and the lock file. The refresh token is presented once.
    @Test func twoRefreshersSharingALockFileRefreshOnce() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = Store(session("AT-old", "RT-old", expiringIn: 5))
        let transport = FakeTransport([Self.granted("AT-new", "RT-new")], delay: 0.3)
        let lock = FileRefreshLock(path: directory + "/vault.db.refresh.lock")
        let refreshers = [store.refresher(transport, lock: lock), store.refresher(transport, lock: lock)]
        let tokens = AdaptiveLock<[String]>([])
        let group = DispatchGroup()
        for index in 0..<8 {
            group.enter()
            Thread.detachNewThread { [key] in
                if let token = try? refreshers[index % 2].token(for: key, minTTL: 60) { tokens.withLock { $0.append(token.accessToken) } }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(transport.sent.count == 1)
        #expect(tokens.withLock { $0 } == Array(repeating: "AT-new", count: 8))
        #expect(store.record.withLock { $0.refreshToken } == "RT-new")
        let mode = try FileManager.default.attributesOfItem(atPath: lock.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// A lock another process holds for too long: the wait ends within the budget, and a token
    /// that is still valid is served.
    @Test func theLockWaitIsBounded() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lock = FileRefreshLock(path: directory + "/vault.db.refresh.lock")
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [key] in
            try? lock.withLock(key, until: Clock.monotonicSeconds() + 5) {
                held.signal()
                release.wait()
            }
            released.signal()
        }
        held.wait()
        defer {
            release.signal()
            released.wait()
        }
        let store = Store(session("AT-old", "RT-old", expiringIn: 30))
        let transport = FakeTransport([Self.granted("AT-new", "RT-new")])
        let started = Clock.monotonicSeconds()
        let token = try store.refresher(transport, lock: lock, budget: 0.6, attemptTimeout: 0.3).token(for: key, minTTL: 60)
        #expect(Clock.monotonicSeconds() - started < 0.6)
        #expect(token.accessToken == "AT-old" && transport.sent.isEmpty)
    }

    /// `vaultctl login` while a refresh is in flight, and the provider grants the refresh: the
    /// new sign-in stays and is served.
    @Test func aGrantDoesNotOverwriteASignInMadeMeanwhile() throws {
        let store = Store(session("AT-old", "RT-old", expiringIn: -10))
        let signedIn = session("AT-login", "RT-login", expiringIn: 3600)
        let transport = DuringRequest(FakeTransport([Self.granted("AT-new", "RT-new")])) { _ in store.record.withLock { $0 = signedIn } }
        #expect(try store.refresher(transport).token(for: key, minTTL: 60).accessToken == "AT-login")
        #expect(store.record.withLock { $0 } == signedIn)
    }

    /// `vaultctl login` during a refresh the provider rejects (the old refresh token was revoked):
    /// the new session is kept, not marked as needing a sign-in, and served.
    @Test func aRejectionDoesNotMarkASignInMadeMeanwhile() throws {
        let store = Store(session("AT-old", "RT-old", expiringIn: -10))
        let signedIn = session("AT-login", "RT-login", expiringIn: 3600)
        let transport = DuringRequest(FakeTransport([FakeTransport.json(400, ["error": "invalid_grant"])])) { _ in
            store.record.withLock { $0 = signedIn }
        }
        #expect(try store.refresher(transport).token(for: key, minTTL: 60).accessToken == "AT-login")
        #expect(store.record.withLock { $0 } == signedIn)
    }

    /// Another refresher rotated the refresh token meanwhile (one that ignores the lock: an older
    /// vaultd), and the provider rejects ours as reused: the refresh is retried from the stored
    /// refresh token instead of killing the session.
    @Test func aRejectionAfterARotationElsewhereRefreshesFromTheStoredToken() throws {
        let store = Store(session("AT-old", "RT-old", expiringIn: -10))
        let inner = FakeTransport([FakeTransport.json(400, ["error": "invalid_grant"]), Self.granted("AT-2", "RT-2")])
        let transport = DuringRequest(inner) { sent in
            if sent == 0 { store.record.withLock { $0 = self.session("AT-1", "RT-1", expiringIn: 20) } }
        }
        #expect(try store.refresher(transport).token(for: key, minTTL: 60).accessToken == "AT-2")
        #expect(inner.sent.map(\.text) == [
            "grant_type=refresh_token&refresh_token=RT-old&client_id=cli", "grant_type=refresh_token&refresh_token=RT-1&client_id=cli",
        ])
        let stored = store.record.withLock { $0 }
        #expect(stored.refreshToken == "RT-2" && !stored.needsSignIn)
    }

    /// A provider whose tokens live 30 s, asked with --min-ttl 60: a token refreshed moments ago
    /// is served, not refreshed again on every call.
    @Test func aJustRefreshedTokenIsServedWhenItsLifetimeIsShorterThanMinTTL() throws {
        let store = Store(session("AT-old", "RT-old", expiringIn: 5))
        let transport = FakeTransport([Self.granted("AT-1", "RT-1", lifetime: 30), Self.granted("AT-2", "RT-2", lifetime: 30)])
        let refresher = store.refresher(transport)
        for _ in 0..<5 { #expect(try refresher.token(for: key, minTTL: 60).accessToken == "AT-1") }
        #expect(transport.sent.count == 1)
        // Once the refresh is older than the window, the next call refreshes again.
        store.record.withLock { $0.refreshedAt = Date().timeIntervalSince1970 - SessionRefresher.recentWindow - 1 }
        #expect(try refresher.token(for: key, minTTL: 60).accessToken == "AT-2")
        #expect(transport.sent.count == 2)
    }

    /// A just-refreshed token with almost no life left is not served: it is refreshed again.
    @Test func aJustRefreshedTokenAboutToExpireIsRefreshed() throws {
        let store = Store(session("AT-old", "RT-old", expiringIn: 1))
        let transport = FakeTransport([Self.granted("AT-1", "RT-1", lifetime: 2), Self.granted("AT-2", "RT-2", lifetime: 2)])
        let refresher = store.refresher(transport)
        _ = try refresher.token(for: key, minTTL: 60)
        #expect(try refresher.token(for: key, minTTL: 60).accessToken == "AT-2")
        #expect(transport.sent.count == 2)
    }

    /// A provider that hangs until each request times out: retries stop when the next attempt
    /// could not finish within the budget, so the whole refresh ends in time.
    @Test func retriesStopWithinTheBudget() throws {
        let store = Store(session("AT-old", "RT-old", expiringIn: 30))
        let transport = FakeTransport([.failed("no answer within 0.4 s")], delay: 0.4)
        let refresher = store.refresher(transport, retryDelays: [0.3, 0.3, 0.3], budget: 1.6, attemptTimeout: 0.45)
        let started = Clock.monotonicSeconds()
        #expect(try refresher.token(for: key, minTTL: 60).accessToken == "AT-old")
        #expect(Clock.monotonicSeconds() - started < 1.6)
        #expect(transport.sent.count == 2)
    }

    /// A symlink where the lock file belongs is never followed: the refresh fails with a storage
    /// error naming the lock, and the link's target is not created.
    @Test func aSymlinkedLockFileIsRefused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lock = FileRefreshLock(path: directory + "/vault.db.refresh.lock")
        try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: directory + "/elsewhere")
        let store = Store(session("AT-old", "RT-old", expiringIn: -10))
        let transport = FakeTransport([Self.granted("AT-new", "RT-new")])
        do {
            _ = try store.refresher(transport, lock: lock).token(for: key, minTTL: 60)
            Issue.record("expected a storage error")
        } catch let VaultError.storage(operation, path, _) {
            #expect(operation.contains("refresh lock") && path == lock.path)
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/elsewhere") && transport.sent.isEmpty)
    }
}
