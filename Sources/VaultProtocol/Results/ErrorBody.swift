import VaultCore

/// A failure: a stable `code` for programs, a sentence for people (never a secret).
public struct ErrorBody: Codable, Sendable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ code: VaultErrorCode, _ message: String) {
        self.init(code: code.rawValue, message: message)
    }

    public init(_ error: VaultError) {
        self.init(error.code, error.description)
    }
}
