import Dispatch
import Foundation
import Synchronization
import VaultCore

/// Hands out valid access tokens, refreshing sessions through their refresh token when they are
/// about to expire. One refresh per session at a time: concurrent callers wait for the one in
/// flight and share its result. A rotated refresh token is saved (durably, by the store) before
/// any caller receives the new access token. Blocking: call from threads that may block.
public final class SessionRefresher: Sendable {
    public struct Token: Sendable, Equatable {
        public var accessToken: String
        public var tokenType: String
        /// Unix seconds, or nil when the provider gave no lifetime.
        public var expiresAt: Double?
    }

    private final class Flight: @unchecked Sendable {
        let group = DispatchGroup()
        // Written once by the leader before `group.leave()`, read by waiters after `group.wait()`.
        var result: Result<Token, Error>?
    }

    /// The network, shared with `SessionManager` (a scripted fake in tests).
    public let transport: any HTTPTransport
    public let load: @Sendable (ItemKey) throws -> SessionRecord
    let save: @Sendable (ItemKey, SessionRecord) throws -> Void
    let log: @Sendable (String) -> Void
    let retryDelays: [Double]
    private let flights = Mutex<[ItemKey: Flight]>([:])

    public init(
        transport: any HTTPTransport = HTTPClient(), retryDelays: [Double] = [0.5, 1.5],
        load: @escaping @Sendable (ItemKey) throws -> SessionRecord,
        save: @escaping @Sendable (ItemKey, SessionRecord) throws -> Void,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.transport = transport
        self.retryDelays = retryDelays
        self.load = load
        self.save = save
        self.log = log
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

    private func usable(_ record: SessionRecord, key: ItemKey, minTTL: Double) throws -> Token? {
        if record.needsSignIn { throw signInRequired(key) }
        guard let expiresAt = record.expiresAt else { return token(from: record) }
        return expiresAt - Date().timeIntervalSince1970 > minTTL ? token(from: record) : nil
    }

    private func refresh(_ key: ItemKey, minTTL: Double) throws -> Token {
        // Reload inside the flight: a refresh that just finished may have made this unnecessary.
        var record = try load(key)
        if let fresh = try usable(record, key: key, minTTL: minTTL) { return fresh }
        guard let refreshToken = record.refreshToken else {
            if stillValid(record) { return token(from: record) }
            throw signInRequired(key, because: "it has no refresh token")
        }
        var problem = ""
        for attempt in 0...retryDelays.count {
            switch refreshOutcome(record, refreshToken: refreshToken) {
            case .granted(let grant):
                record.apply(grant)
                // Durable before anyone sees the new token: with rotation, the old refresh token is dead now.
                try save(key, record)
                log("refreshed the session for \(key)")
                return token(from: record)
            case .rejected(let code, _):
                record.needsSignIn = true
                try? save(key, record)
                log("the provider rejected the refresh token for \(key) (\(code)); it needs a new sign-in")
                throw signInRequired(key, because: "the provider rejected its refresh token (\(code))")
            case .temporary(let message):
                problem = message
                if attempt < retryDelays.count { Thread.sleep(forTimeInterval: retryDelays[attempt]) }
            case .malformed(let message):
                problem = message
                return try fallBack(record, key: key, problem: problem)
            }
        }
        return try fallBack(record, key: key, problem: problem)
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
        if stillValid(record) {
            log("could not refresh the session for \(key) (\(problem)); serving the current token, still valid")
            return token(from: record)
        }
        throw VaultError.unavailable("could not refresh the session for \(key): \(problem); the stored session is unchanged, try again")
    }

    private func stillValid(_ record: SessionRecord) -> Bool {
        guard let expiresAt = record.expiresAt else { return true }
        return expiresAt > Date().timeIntervalSince1970
    }

    private func token(from record: SessionRecord) -> Token {
        Token(accessToken: record.accessToken, tokenType: record.tokenType, expiresAt: record.expiresAt)
    }

    private func signInRequired(_ key: ItemKey, because reason: String = "the provider rejected its refresh token") -> VaultError {
        .signInRequired("the session for \(key) needs a new sign-in: \(reason). Run 'vaultctl login oauth2 ... --service \(key.service)' or 'vaultctl session import \(key.service) \(key.account)'")
    }
}
