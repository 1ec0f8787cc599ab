import Dispatch
import VaultCore
import VaultProtocol

/// The async API other Swift programs use to talk to vaultd.
///
/// Every call runs the blocking socket I/O on a private serial queue (never the Swift cooperative
/// pool) and resumes the caller when vaultd has answered. Errors are `VaultClientError`, whose
/// `code` mirrors the protocol's error codes.
///
/// ```swift
/// let vault = VaultClient()
/// try await vault.set(service: "github.com", account: "me", secret: SecretBytes(utf8: token))
/// let secret = try await vault.get(service: "github.com", account: "me").secret
/// ```
public final class VaultClient: @unchecked Sendable {
    // `session` is used only on `queue`.
    private let session: VaultSession
    private let queue = DispatchQueue(label: "VaultClient")

    /// `socketPath` nil: the usual location. `autostart` nil: on unless `VAULT_NO_AUTOSTART=1`.
    public init(socketPath: String? = nil, autostart: Bool? = nil) {
        session = VaultSession(socketPath: socketPath, autostart: autostart)
    }

    public var socketPath: String { session.socketPath }

    /// An item's metadata and secret.
    public struct Item: Sendable {
        public let metadata: ItemBody
        public let secret: SecretBytes
    }

    public func get(service: String, account: String) async throws -> Item {
        let result = try await send(Request(op: .get, service: service, account: account))
        guard let item = result.item else { throw VaultClientError(code: .internal, message: "vaultd's answer has no item") }
        guard let secret = try WireSecret.decode(text: item.secret, base64: item.secretBase64, field: "secret") else {
            throw VaultClientError(code: .internal, message: "vaultd's answer has no secret")
        }
        var metadata = item
        metadata.secret = nil
        metadata.secretBase64 = nil
        return Item(metadata: metadata, secret: secret)
    }

    /// Adds an item; fails with `.duplicate` when it exists.
    @discardableResult
    public func add(service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil) async throws -> ItemBody {
        try await write(.add, service: service, account: account, secret: secret, label: label, comment: comment)
    }

    /// Inserts or replaces an item.
    @discardableResult
    public func set(service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil) async throws -> ItemBody {
        try await write(.set, service: service, account: account, secret: secret, label: label, comment: comment)
    }

    public func delete(service: String, account: String) async throws {
        _ = try await send(Request(op: .delete, service: service, account: account))
    }

    /// Metadata of every item (of one service when given); never secrets.
    public func list(service: String? = nil) async throws -> [ItemBody] {
        try await send(Request(op: .list, service: service)).items ?? []
    }

    public func status() async throws -> StatusBody {
        guard let status = try await send(Request(op: .status)).status else {
            throw VaultClientError(code: .internal, message: "vaultd's answer has no status")
        }
        return status
    }

    public func lock() async throws {
        _ = try await send(Request(op: .lock))
    }

    /// Unlocks the store; the file store needs `passphrase` (and creates the vault on first use).
    public func unlock(passphrase: SecretBytes?) async throws {
        _ = try await send(Request(op: .unlock, passphrase: passphrase.map(WireSecret.text)))
    }

    /// A valid access token of the sign-in session `service` (and `account`, when the service has
    /// several), refreshed by vaultd first when it expires within `minTTL` seconds. Throws
    /// `VaultClientError` with `.signInRequired` when the user must sign in again.
    public func token(service: String, account: String? = nil, minTTL: Double = 60) async throws -> TokenBody {
        var request = Request(op: .token, service: service, account: account)
        request.minTTL = minTTL
        guard let token = try await send(request).token else { throw VaultClientError(code: .internal, message: "vaultd's answer has no token") }
        return token
    }

    /// Sends any request: for operations this wrapper does not cover yet.
    public func send(_ request: Request) async throws -> ResultBody {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.session.send(request) })
            }
        }
    }

    private func write(_ op: Operation, service: String, account: String, secret: SecretBytes, label: String?, comment: String?) async throws -> ItemBody {
        let wire = WireSecret.encode(secret)
        let request = Request(op: op, service: service, account: account, secret: wire.text, secretBase64: wire.base64, label: label, comment: comment)
        guard let item = try await send(request).item else { throw VaultClientError(code: .internal, message: "vaultd's answer has no item") }
        return item
    }
}
