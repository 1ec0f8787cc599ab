import COpenSSL
import VaultCore

/// Failures of the OpenSSL wrapper. Closed: callers can switch over every case.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An AES-GCM tag did not verify: wrong key, or data that was altered.
    case authenticationFailed
    /// Parameters outside what the wrapper accepts (key or nonce size, scrypt limits).
    case invalidParameters(String)
    /// OpenSSL reported an internal failure (allocation, RNG); carries its error string.
    case library(String)

    public var description: String {
        switch self {
        case .authenticationFailed: "authentication failed"
        case .invalidParameters(let what): "invalid crypto parameters: \(what)"
        case .library(let message): "OpenSSL failure: \(message)"
        }
    }

    /// Drains OpenSSL's thread-local error queue into a `.library` error.
    static func fromOpenSSL(_ operation: String) -> CryptoError {
        var message = operation
        let code = ERR_get_error()
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            message += ": " + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        ERR_clear_error()
        return .library(message)
    }
}
