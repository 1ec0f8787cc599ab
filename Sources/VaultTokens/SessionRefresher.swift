import Dispatch
import Foundation
import Synchronization
import VaultCore
import VaultSystem

/// Hands out valid access tokens, refreshing sessions through their refresh token when they are
/// about to expire. One refresh per session at a time: concurrent callers in this process wait
/// for the one in flight and share its result, and `lock` keeps other processes on the same
/// store out while it runs. A refresh writes by compare-and-swap: the provider's answer is stored
/// only when the stored session is still the one the refresh started from; otherwise the newer
/// session is served (a sign-in meanwhile is never overwritten, not even with "needs sign-in").
/// A rotated refresh token is saved (durably, by the store) before any caller receives the new
/// access token. Each refresh finishes within `budget` seconds. Blocking: call from threads that
/// may block.
public final class SessionRefresher: Sendable {
    public struct Token: Sendable, Equatable {
        public var accessToken: String
        public var tokenType: String
        /// Unix seconds, or nil when the provider gave no lifetime.
        public var expiresAt: Double?
    }

    /// Reads the stored session, hands it to the change, and stores what the change returns (nil:
    /// nothing), atomically with respect to this process's other writers; returns the session
    /// stored afterwards.
    public typealias Update = @Sendable (ItemKey, (SessionRecord) throws -> SessionRecord?) throws -> SessionRecord

    /// The longest one refresh takes, lock wait, attempts and pauses included: shorter than a
    /// client's wait for `token` (VaultConnection waits 30 s), so the client hears the outcome.
    public static let defaultBudget = 20.0
    /// A token refreshed this many seconds ago or less is served while it has `recentMinimum`
    /// seconds left (or the caller's min-ttl, when smaller), even when it expires within the
    /// caller's min-ttl: a provider whose lifetime is shorter than min-ttl is not asked on every call.
    public static let recentWindow = 10.0
    public static let recentMinimum = 5.0

    private final class Flight: @unchecked Sendable {
        let group = DispatchGroup()
        // Written once by the leader before `group.leave()`, read by waiters after `group.wait()`.
        var result: Result<Token, Error>?
    }

    /// The network, shared with `SessionManager` (a scripted fake in tests).
    public let transport: any HTTPTransport
    public let load: @Sendable (ItemKey) throws -> SessionRecord
    let update: Update
    let lock: any RefreshLock
    /// What happened to a session, and which: the message never names it, so that a caller can
    /// keep names out of its log.
    let log: @Sendable (_ message: String, _ session: ItemKey) -> Void
    let retryDelays: [Double]
    let budget: Double
    /// The longest one request to the provider takes (the transport's timeout and its margin):
    /// an attempt starts only when it can finish within the budget.
    let attemptTimeout: Double
    private let flights = AdaptiveLock<[ItemKey: Flight]>([:])

    public init(
        transport: any HTTPTransport = HTTPClient(), retryDelays: [Double] = [0.5, 1.5],
        budget: Double = SessionRefresher.defaultBudget, attemptTimeout: Double = 11,
        lock: any RefreshLock = ProcessLocalRefreshLock(),
        load: @escaping @Sendable (ItemKey) throws -> SessionRecord,
        update: @escaping Update,
        log: @escaping @Sendable (_ message: String, _ session: ItemKey) -> Void
    ) {
        self.transport = transport
        self.retryDelays = retryDelays
        self.budget = budget
        self.attemptTimeout = attemptTimeout
        self.lock = lock
        self.load = load
        self.update = update
        self.log = log
    }

    /// Over plain load and save closures (a store only this refresher writes, as in tests).
    public convenience init(
        transport: any HTTPTransport = HTTPClient(), retryDelays: [Double] = [0.5, 1.5],
        budget: Double = SessionRefresher.defaultBudget, attemptTimeout: Double = 11,
        lock: any RefreshLock = ProcessLocalRefreshLock(),
        load: @escaping @Sendable (ItemKey) throws -> SessionRecord,
        save: @escaping @Sendable (ItemKey, SessionRecord) throws -> Void,
        log: @escaping @Sendable (_ message: String, _ session: ItemKey) -> Void
    ) {
        self.init(
            transport: transport, retryDelays: retryDelays, budget: budget, attemptTimeout: attemptTimeout, lock: lock, load: load,
            update: { key, change in
                let current = try load(key)
                guard let changed = try change(current) else { return current }
                try save(key, changed)
                return changed
            },
            log: log)
    }

    /// A token valid for at least `minTTL` more seconds, refreshing first when needed.
    public func token(for key: ItemKey, minTTL: Double) throws -> Token {
        let record = try load(key)
        if let fresh = try usable(record, key: key, minTTL: minTTL) { return fresh }
        let (flight, leader) = flights.withLock { flights -> (Flight, Bool) in
            if let running = flights[key] { return (running, false) }
            let flight = Flight()
            flight.group.enter()
            flights[key] = flight
            return (flight, true)
        }
        if !leader {
            flight.group.wait()
            return try flight.result!.get()
        }
        let result = Result { try refresh(key, minTTL: minTTL) }
        flight.result = result
        flights.withLock { _ = $0.removeValue(forKey: key) }
        flight.group.leave()
        return try result.get()
    }

    /// A token to serve as it is, or nil when it must be refreshed first.
    private func usable(_ record: SessionRecord, key: ItemKey, minTTL: Double) throws -> Token? {
        if record.needsSignIn { throw signInRequired(key) }
        guard let expiresAt = record.expiresAt else { return token(from: record) }
        let now = SessionClock.now()
        let left = expiresAt - now
        if left > minTTL { return token(from: record) }
        // No refresh storms: just refreshed, still good for a while.
        if let refreshedAt = record.refreshedAt, (0...Self.recentWindow).contains(now - refreshedAt),
           left >= min(minTTL, Self.recentMinimum) {
            return token(from: record)
        }
        return nil
    }

    private func refresh(_ key: ItemKey, minTTL: Double) throws -> Token {
        let deadline = Clock.monotonicSeconds() + budget
        do {
            // Waiting for another process's refresh leaves time for one attempt of our own.
            return try lock.withLock(key, until: deadline - attemptTimeout) {
                try refreshHoldingLock(key, minTTL: minTTL, deadline: deadline)
            }
        } catch VaultError.busy {
            return try fallBack(try load(key), key: key, problem: "another process kept refreshing it for too long")
        }
    }

    private func refreshHoldingLock(_ key: ItemKey, minTTL: Double, deadline: Double) throws -> Token {
        // Reload inside the flight and the lock: a refresh that just finished, here or in another
        // process, may have made this unnecessary.
        var record = try load(key)
        if let fresh = try usable(record, key: key, minTTL: minTTL) { return fresh }
        var problem = ""
        var attempt = 0
        var restarted = false
        while true {
            guard let refreshToken = record.refreshToken else {
                if stillValid(record) { return token(from: record) }
                throw signInRequired(key, because: "it has no refresh token")
            }
            switch refreshOutcome(record, refreshToken: refreshToken) {
            case .granted(let grant):
                var refreshed = record
                refreshed.apply(grant)
                refreshed.refreshedAt = SessionClock.now()
                // Durable before anyone sees the new token: with rotation, the old refresh token is dead now.
                let stored = try update(key) { $0 == record ? refreshed : nil }
                if stored == refreshed {
                    log("refreshed a session", key)
                    return token(from: refreshed)
                }
                log("a session changed while it was being refreshed; keeping the stored one", key)
                return stillValid(stored) && !stored.needsSignIn ? token(from: stored) : token(from: refreshed)
            case .rejected(let code, _):
                var dead = record
                dead.needsSignIn = true
                let stored = (try? update(key) { $0 == record ? dead : nil }) ?? dead
                guard stored != dead else {
                    log("the provider rejected a session's refresh token (\(code)); it needs a new sign-in", key)
                    throw signInRequired(key, because: "the provider rejected its refresh token (\(code))")
                }
                // A sign-in (or a refresh elsewhere) replaced the session meanwhile: use that one.
                log("the provider rejected an old refresh token (\(code)); the session changed meanwhile, keeping the stored one", key)
                if let fresh = try usable(stored, key: key, minTTL: minTTL) { return fresh }
                guard !restarted, Clock.monotonicSeconds() + attemptTimeout <= deadline else {
                    return try fallBack(stored, key: key, problem: "it changed while it was being refreshed")
                }
                restarted = true
                record = stored
            case .temporary(let message):
                problem = message
                // Another attempt only when it, and the pause before it, fit in the budget.
                guard attempt < retryDelays.count, Clock.monotonicSeconds() + retryDelays[attempt] + attemptTimeout <= deadline else {
                    return try fallBack(record, key: key, problem: problem)
                }
                Thread.sleep(forTimeInterval: retryDelays[attempt])
                attempt += 1
            case .malformed(let message):
                return try fallBack(record, key: key, problem: message)
            }
        }
    }

    /// Asks the session's provider for new tokens.
    private func refreshOutcome(_ record: SessionRecord, refreshToken: String) -> TokenOutcome {
        do {
            return try ProviderRegistry.provider(for: record, transport: transport).refresh(record, refreshToken: refreshToken)
        } catch {
            return .malformed("the stored session is incomplete: \(error)")
        }
    }

    /// After a failed refresh: a token that is still valid is served; otherwise a clear error.
    /// The stored session is left as it was.
    private func fallBack(_ record: SessionRecord, key: ItemKey, problem: String) throws -> Token {
        if record.needsSignIn { throw signInRequired(key) }
        if stillValid(record) {
            log("could not refresh a session (\(problem)); serving the current token, still valid", key)
            return token(from: record)
        }
        throw VaultError.unavailable("could not refresh the session for \(key): \(problem); the stored session is unchanged, try again")
    }

    private func stillValid(_ record: SessionRecord) -> Bool {
        guard let expiresAt = record.expiresAt else { return true }
        return expiresAt > SessionClock.now()
    }

    private func token(from record: SessionRecord) -> Token {
        Token(accessToken: record.accessToken, tokenType: record.tokenType, expiresAt: record.expiresAt)
    }

    private func signInRequired(_ key: ItemKey, because reason: String = "the provider rejected its refresh token") -> VaultError {
        .signInRequired("the session for \(key) needs a new sign-in: \(reason). Run 'vaultctl login oauth2 ... --service \(key.service)' or 'vaultctl session import \(key.service) \(key.account)'")
    }
}
