/// What `VaultAuthStorage` and `VaultTokenSource` throw: the three things a program tells its
/// user about, and everything else. Built from a `VaultClientError`'s `code`, never its message.
///
/// - `signInRequired`: there is no session, or its provider rejected the refresh token: ask the
///   user to sign in again (`vaultctl login ...`).
/// - `locked`: the vault is locked (or needs its passphrase): ask the user to run `vaultctl unlock`.
/// - `unavailable`: vaultd cannot be reached, did not answer in time, or could not refresh the
///   session just now: try again later.
/// - `failed`: anything else (bad input, a full store, ...), with the `VaultClientError`.
public enum VaultSessionError: Error, Equatable, Sendable, CustomStringConvertible {
    case signInRequired(String)
    case locked(String)
    case unavailable(String)
    case failed(VaultClientError)

    public init(_ error: VaultClientError) {
        switch error.code {
        case .signInRequired, .notFound: self = .signInRequired(error.message)
        case .locked, .passphraseRequired, .newPassphraseRequired: self = .locked(error.message)
        case .unavailable, .busy: self = .unavailable(error.message)
        default: self = .failed(error)
        }
    }

    /// A sentence for people; never a secret.
    public var description: String {
        switch self {
        case .signInRequired(let message), .locked(let message), .unavailable(let message): message
        case .failed(let error): error.message
        }
    }
}
