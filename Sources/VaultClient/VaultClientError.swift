import VaultCore
import VaultSystem

/// Every error a VaultClient call throws: from vaultd, or from reaching it. `code` mirrors the
/// protocol's error codes (docs/protocol.md); failures to connect use `.unavailable`; a code this
/// build does not know is `.internal`. `message` is a sentence for people and never a secret.
/// Classify by `code`, never by `message`.
public struct VaultClientError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: VaultErrorCode
    public let message: String

    public init(code: VaultErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func unavailable(_ message: String) -> VaultClientError { .init(code: .unavailable, message: message) }

    static func malformedAnswer(_ what: String) -> VaultClientError {
        .init(code: .internal, message: "vaultd sent an answer this client cannot read (\(what)); are vaultd and this program the same version?")
    }

    /// The one mapping of everything a call can fail with into a `VaultClientError`.
    init(_ error: any Error) {
        switch error {
        case let error as VaultClientError: self = error
        case let error as VaultError: self.init(code: error.code, message: error.description)
        case let error as Errno: self.init(code: .unavailable, message: "cannot talk to vaultd: \(error)")
        default: self.init(code: .internal, message: "\(error)")
        }
    }
}
