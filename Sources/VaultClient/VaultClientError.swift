import VaultCore

/// An error from vaultd or from reaching it. `code` mirrors the protocol's error codes
/// (docs/protocol.md); failures to connect use `.unavailable`.
public struct VaultClientError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: VaultErrorCode
    public let message: String

    public init(code: VaultErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func unavailable(_ message: String) -> VaultClientError { .init(code: .unavailable, message: message) }
}
