import Dispatch
import VaultCore

/// The async API Swift programs use to talk to vaultd: every operation of `VaultConnection`,
/// awaited.
///
/// Every call runs the blocking socket I/O on a private serial queue (never the Swift cooperative
/// pool) and resumes the caller when vaultd has answered. Every error thrown is a
/// `VaultClientError`, whose `code` mirrors the protocol's error codes.
///
/// ```swift
/// let vault = VaultClient()
/// try await vault.set(service: "github.com", account: "me", secret: SecretBytes(utf8: token))
/// let secret = try await vault.get(service: "github.com", account: "me").secret
/// ```
public final class VaultClient: @unchecked Sendable {
    // `connection` is used only on `queue`.
    private let connection: VaultConnection
    private let queue = DispatchQueue(label: "VaultClient")

    /// `socketPath` nil: the usual location. `autostart` nil: on unless `VAULT_NO_AUTOSTART=1`.
    public init(socketPath: String? = nil, autostart: Bool? = nil) {
        connection = VaultConnection(socketPath: socketPath, autostart: autostart)
    }

    public var socketPath: String { connection.socketPath }

    /// Runs `body` with the connection on the private queue.
    private func run<R: Sendable>(_ body: @escaping @Sendable (VaultConnection) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body(self.connection) }.mapError(VaultClientError.init))
            }
        }
    }

    public func get(service: String, account: String) async throws -> VaultItem {
        try await run { try $0.get(service: service, account: account) }
    }

    @discardableResult
    public func add(service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil, kind: ItemKind? = nil) async throws -> ItemMetadata {
        try await run { try $0.add(service: service, account: account, secret: secret, label: label, comment: comment, kind: kind) }
    }

    @discardableResult
    public func set(service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil, kind: ItemKind? = nil) async throws -> ItemMetadata {
        try await run { try $0.set(service: service, account: account, secret: secret, label: label, comment: comment, kind: kind) }
    }

    public func delete(service: String, account: String) async throws {
        try await run { try $0.delete(service: service, account: account) }
    }

    public func list(service: String? = nil) async throws -> [ItemMetadata] {
        try await run { try $0.list(service: service) }
    }

    public func listing(service: String? = nil) async throws -> ItemListing {
        try await run { try $0.listing(service: service) }
    }

    public func status() async throws -> VaultStatus {
        try await run { try $0.status() }
    }

    public func lock() async throws {
        try await run { try $0.lock() }
    }

    public func unlock(passphrase: SecretBytes?) async throws {
        try await run { try $0.unlock(passphrase: passphrase) }
    }

    public func changePassphrase(current: SecretBytes, new: SecretBytes, rekey: Bool = true) async throws {
        try await run { try $0.changePassphrase(current: current, new: new, rekey: rekey) }
    }

    public func migrate(to destination: StoreKind, passphrase: SecretBytes? = nil) async throws -> MigrationReport {
        try await run { try $0.migrate(to: destination, passphrase: passphrase) }
    }

    public func doctor() async throws -> DoctorReport {
        try await run { try $0.doctor() }
    }

    /// A valid access token, refreshed by vaultd first when it expires within `minTTL` seconds.
    /// Throws `.signInRequired` when the user must sign in again.
    public func token(service: String, account: String? = nil, minTTL: Double = 60) async throws -> AccessToken {
        try await run { try $0.token(service: service, account: account, minTTL: minTTL) }
    }

    public func signIn(_ provider: ProviderSettings, user: String, password: SecretBytes, service: String? = nil, account: String? = nil) async throws -> SignInResult {
        try await run { try $0.signIn(provider, user: user, password: password, service: service, account: account) }
    }

    public func signUp(_ provider: ProviderSettings, user: String, password: SecretBytes, service: String? = nil, account: String? = nil) async throws -> SignInResult {
        try await run { try $0.signUp(provider, user: user, password: password, service: service, account: account) }
    }

    public func resetPassword(_ provider: ProviderSettings, email: String) async throws -> String {
        try await run { try $0.resetPassword(provider, email: email) }
    }

    /// `local` true forgets the session here without asking its provider to end it.
    public func logout(service: String, account: String? = nil, local: Bool = false) async throws -> String {
        try await run { try $0.logout(service: service, account: account, local: local) }
    }

    @discardableResult
    public func importSession(service: String, account: String, json: SecretBytes, defaults: SessionDefaults = SessionDefaults()) async throws -> ItemMetadata {
        try await run { try $0.importSession(service: service, account: account, json: json, defaults: defaults) }
    }

    public func startDeviceSignIn(deviceEndpoint: String, clientID: String?, clientSecret: String?, scope: String?) async throws -> DeviceCodes {
        try await run { try $0.startDeviceSignIn(deviceEndpoint: deviceEndpoint, clientID: clientID, clientSecret: clientSecret, scope: scope) }
    }

    public func pollDeviceSignIn(service: String, account: String?, client: OAuth2Settings, deviceCode: String) async throws -> DevicePollResult {
        try await run { try $0.pollDeviceSignIn(service: service, account: account, client: client, deviceCode: deviceCode) }
    }
}
