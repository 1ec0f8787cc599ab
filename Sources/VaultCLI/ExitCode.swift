import VaultCore

/// vaultctl's exit codes: stable, listed in the README.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case notFound = 3
    /// Locked, wrong passphrase, or sign-in required.
    case locked = 4
    /// No daemon reachable (and none could be started), or no usable store.
    case unavailable = 5
    case duplicate = 6
    /// An access rule or the approver refused the item to this program.
    case denied = 7

    init(_ code: VaultErrorCode) {
        switch code {
        case .notFound: self = .notFound
        case .duplicate, .conflict: self = .duplicate
        case .denied: self = .denied
        case .locked, .wrongPassphrase, .signInRequired, .passphraseRequired, .newPassphraseRequired: self = .locked
        case .unavailable, .corruptVault, .unsupportedVersion: self = .unavailable
        case .badRequest, .tooLarge: self = .usage
        case .permissionDenied, .internal, .busy, .storageError: self = .failure
        }
    }
}
