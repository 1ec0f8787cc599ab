import Foundation
import Synchronization
import VaultCore
import VaultSystem

/// Starts, ends, imports and describes sign-in sessions on top of load/save/delete closures, the
/// way `SessionRefresher` keeps them fresh; the provider-specific work is `ProviderRegistry`'s.
/// It lives in VaultTokens rather than VaultDaemon so it can be tested in-process with a
/// scripted `HTTPTransport` and in-memory closures, without a store or the wire protocol; the
/// daemon's handlers only parse the request, call it and build the answer.
/// Blocking (network and store): call from threads that may block, never the cooperative pool.
public final class SessionManager: Sendable {
    /// A session's non-secret details, for list and status.
    public struct Details: Sendable, Equatable {
        public var provider: ProviderKind
        /// Email when known, else the provider's user id.
        public var user: String?
        /// Unix seconds, or nil when the provider gave no lifetime.
        public var expiresAt: Double?
        public var needsSignIn: Bool
    }

    /// What a sign-in or sign-up gave: the stored session, or none yet with a sentence saying
    /// what to do (Supabase sign-up with email confirmation on).
    public struct SignInResult: Sendable {
        public var key: ItemKey
        public var info: ItemInfo?
        public var message: String?
    }

    public enum DevicePollResult: Sendable {
        case pending
        case slowDown
        case signedIn(ItemInfo)
    }

    public let refresher: SessionRefresher
    var transport: any HTTPTransport { refresher.transport }
    let save: @Sendable (ItemKey, SessionRecord, _ label: String?) throws -> ItemInfo
    let delete: @Sendable (ItemKey) throws -> Void
    /// Details by key, with the `modified` time of the item they were read from: `describe`
    /// decrypts a session again only when its item changed (or is new to this daemon).
    private let details = AdaptiveLock<[ItemKey: (modified: Int64, details: Details)]>([:])

    /// `save` stores a session (with its label when given) and returns its item's metadata.
    public init(
        refresher: SessionRefresher,
        save: @escaping @Sendable (ItemKey, SessionRecord, _ label: String?) throws -> ItemInfo,
        delete: @escaping @Sendable (ItemKey) throws -> Void
    ) {
        self.refresher = refresher
        self.save = save
        self.delete = delete
    }

    /// Signs in (or up) with the provider the settings name and stores the session under
    /// `service` (or the provider's default) and `account` (or the user).
    public func signIn(_ settings: ProviderSettings, user: String, password: SecretBytes, service: String?, account: String?,
                       signingUp: Bool) throws -> SignInResult {
        let provider = try ProviderRegistry.provider(for: settings, transport: transport)
        let serviceName: String
        if let service, !service.isEmpty || provider.defaultService != nil {
            serviceName = service
        } else if let fallback = provider.defaultService {
            serviceName = fallback
        } else {
            throw VaultError.invalidInput("missing field 'service'")
        }
        let key = try ItemKey(service: serviceName, account: account ?? user)
        let record: SessionRecord
        if signingUp {
            switch try provider.signUp(user: user, password: password) {
            case .signedIn(let signedIn): record = signedIn
            case .pending(let message): return SignInResult(key: key, info: nil, message: message)
            }
        } else {
            record = try provider.signIn(user: user, password: password)
        }
        return SignInResult(key: key, info: try store(key, record, label: Self.label(key)), message: nil)
    }

    /// Sends a password reset email through the provider the settings name.
    public func resetPassword(_ settings: ProviderSettings, email: String) throws {
        try ProviderRegistry.provider(for: settings, transport: transport).sendPasswordReset(email: email)
    }

    /// How a logout ended.
    public enum Logout: Sendable, Equatable {
        /// The server confirmed (or said the session was gone already), then it was forgotten here.
        case endedOnServer
        /// The provider has no server-side sign-out (Firebase; OAuth 2.0 without a revocation
        /// endpoint), or the provider had already refused the session: forgotten here.
        case nothingToEnd
    }

    /// Ends the session on the server where its provider can, then forgets it. Only the server's
    /// confirmation lets it go: when the server cannot be reached, or answers anything else, this
    /// throws and the session is kept, so signing out can be retried (or `forget` it).
    public func logout(_ key: ItemKey) throws -> Logout {
        var record = try refresher.load(key)
        if record.needsSignIn {
            // The provider refused its refresh token with a documented "sign in again" answer: over already.
            try forget(key)
            return .nothingToEnd
        }
        let type = ProviderRegistry.type(of: record.provider)
        if type.signsOutWithAccessToken, let expiresAt = record.expiresAt, expiresAt - SessionClock.now() < 5 {
            // The sign-out request needs a live access token: refresh first (failures surface below).
            _ = try? refresher.token(for: key, minTTL: 5)
            record = try refresher.load(key)
            if record.needsSignIn {
                try forget(key)
                return .nothingToEnd
            }
        }
        let provider = try ProviderRegistry.provider(for: record, transport: transport)
        let ended = try provider.signOut(record)
        try forget(key)
        return ended ? .endedOnServer : .nothingToEnd
    }

    /// Forgets a session here without asking its provider (`logout --local`).
    public func forget(_ key: ItemKey) throws {
        try delete(key)
        details.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// Stores a session given as JSON (a record, or a token response); `defaults` fill in what
    /// the JSON lacks.
    public func importSession(_ key: ItemKey, json: [UInt8], defaults: SessionDefaults, now: Double) throws -> ItemInfo {
        var settings: [String: String] = [:]
        settings["provider"] = defaults.provider?.rawValue
        settings["project_url"] = defaults.url
        settings["api_key"] = defaults.apiKey
        settings["token_endpoint"] = defaults.tokenEndpoint
        settings["client_id"] = defaults.clientID
        return try store(key, SessionRecord.importing(json, now: now, settings: settings), label: nil)
    }

    /// Starts a device sign-in (RFC 8628): the codes to show the user.
    public func startDeviceSignIn(endpoint: String, clientID: String?, clientSecret: String?, scope: String?) throws -> DeviceAuthorization {
        try SessionRecord.checkEndpoint(endpoint)
        return try DeviceAuthorization.start(
            client: TokenEndpointClient(http: transport), endpoint: endpoint, clientID: clientID, clientSecret: clientSecret, scope: scope)
    }

    /// Asks whether the user approved the device code yet; stores the session once they have.
    public func pollDeviceSignIn(_ key: ItemKey, client settings: OAuth2Settings, deviceCode: String) throws -> DevicePollResult {
        var record = SessionRecord.beforeSignIn(oauth2: settings)
        try record.validate()
        switch DeviceAuthorization.poll(
            client: TokenEndpointClient(http: transport), tokenEndpoint: record.tokenEndpoint, deviceCode: deviceCode,
            clientID: record.clientID, clientSecret: record.clientSecret) {
        case .pending: return .pending
        case .slowDown: return .slowDown
        case .failed(let error): throw error
        case .granted(let grant):
            record.apply(grant)
            return .signedIn(try store(key, record, label: Self.label(key)))
        }
    }

    /// The non-secret details of the session `info` describes; nil for other items or when it
    /// cannot be read. Reads (decrypts) the session only when its item changed since last time.
    public func describe(_ info: ItemInfo) -> Details? {
        guard info.kind == .session else { return nil }
        if let known = details.withLock({ $0[info.key] }), known.modified == info.modified { return known.details }
        let record: SessionRecord
        do {
            record = try refresher.load(info.key)
        } catch {
            // An unusable stored session (imported before values were checked) is reported, not trusted.
            refresher.log("a stored session is not usable ('vaultctl token' says why): sign in again, import it again, or 'vaultctl logout --local' it", info.key)
            return nil
        }
        let fresh = Details(record)
        details.withLock { $0[info.key] = (info.modified, fresh) }
        return fresh
    }

    private func store(_ key: ItemKey, _ record: SessionRecord, label: String?) throws -> ItemInfo {
        let info = try save(key, record, label)
        details.withLock { $0[key] = (info.modified, Details(record)) }
        return info
    }

    private static func label(_ key: ItemKey) -> String { "\(key.service) session (\(key.account))" }
}

extension SessionManager.Details {
    init(_ record: SessionRecord) {
        self.init(provider: record.provider, user: record.email ?? record.userID, expiresAt: record.expiresAt, needsSignIn: record.needsSignIn)
    }
}
