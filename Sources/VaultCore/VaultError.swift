import VaultSystem

/// Every failure the vault reports. Each case says what happened and what to do, maps to a stable
/// wire code (`code`) and never carries a secret: only names, paths and counts.
public enum VaultError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(ItemKey)
    case duplicate(ItemKey)
    /// The store is locked; the string explains how to unlock it.
    case locked(String)
    case invalidInput(String)
    case tooLarge(String)
    case wrongPassphrase
    /// The passphrase is needed but no source provides one (no file, no credential, no variable).
    /// `creating`: the store does not exist yet, so the passphrase to give is a new one.
    case passphraseUnavailable(String, creating: Bool = false)
    /// The vault file is damaged: truncated, bad checksum, malformed structure.
    case corruptVault(path: String, detail: String)
    /// The vault file's contents fail authentication: altered, or from another vault.
    case tamperedVault(path: String, detail: String)
    case notAVault(path: String)
    case unsupportedVersion(path: String, found: Int, supported: Int)
    /// Permissions or ownership that would expose the vault; says how to fix them.
    case insecurePermissions(path: String, detail: String)
    /// Another process holds the vault's write lock for longer than we wait.
    case busy(path: String)
    /// A file operation failed; `operation` names it, `errno` says why (ENOSPC, EACCES, ...).
    case storage(operation: String, path: String, errno: Errno)
    case unavailable(String)
    /// A sign-in session whose refresh token was rejected: the user must sign in again.
    case signInRequired(String)
    case permissionDenied(String)
    /// An access rule, or the approver, refused the caller the item; the string says why and how to allow it.
    case denied(String)
    case `internal`(String)
    /// Something other than an item is missing (a remote, a remote secret); the string names it.
    case absent(String)
    /// A remote secret's write was refused because another version came first; the string names both.
    case conflict(String)

    public var code: VaultErrorCode {
        switch self {
        case .notFound: .notFound
        case .duplicate: .duplicate
        case .locked: .locked
        case .passphraseUnavailable(_, let creating): creating ? .newPassphraseRequired : .passphraseRequired
        case .invalidInput: .badRequest
        case .tooLarge: .tooLarge
        case .wrongPassphrase: .wrongPassphrase
        case .corruptVault, .tamperedVault, .notAVault: .corruptVault
        case .unsupportedVersion: .unsupportedVersion
        case .insecurePermissions, .permissionDenied: .permissionDenied
        case .busy: .busy
        case .storage: .storageError
        case .unavailable: .unavailable
        case .signInRequired: .signInRequired
        case .internal: .internal
        case .denied: .denied
        case .absent: .notFound
        case .conflict: .conflict
        }
    }

    /// What happened without the kind's prefix ("vault unavailable: "), to quote inside another message.
    public var reason: String {
        switch self {
        case .unavailable(let why), .permissionDenied(let why), .denied(let why), .internal(let why): why
        default: description
        }
    }

    public var description: String {
        switch self {
        case .notFound(let key):
            "no item for \(key)"
        case .duplicate(let key):
            "an item for \(key) already exists: use 'set' to replace it"
        case .locked(let how):
            "vault is locked: \(how)"
        case .invalidInput(let what):
            what
        case .tooLarge(let what):
            what
        case .wrongPassphrase:
            "wrong passphrase: the vault was not opened and has not been changed"
        case .passphraseUnavailable(let why, _):
            "no passphrase available: \(why)"
        case .corruptVault(let path, let detail):
            "vault file \(path) is damaged (\(detail)); it was left untouched: restore it from a backup or move it aside to start a new vault"
        case .tamperedVault(let path, let detail):
            "vault file \(path) failed authentication (\(detail)): it was altered or belongs to another vault; it was left untouched"
        case .notAVault(let path):
            "\(path) is not a vault file; it was left untouched: point VAULT_FILE elsewhere or move the file aside"
        case .unsupportedVersion(let path, let found, let supported):
            "vault file \(path) has format version \(found), but this build reads up to version \(supported): upgrade vault"
        case .insecurePermissions(let path, let detail):
            "refusing to use \(path): \(detail)"
        case .busy(let path):
            "another process is writing \(path) and did not finish in time; try again"
        case .storage(let operation, let path, let errno):
            switch errno {
            case .noSpace, .quotaExceeded:
                "could not \(operation) \(path): no space left on the device; free some space and try again (the vault is unchanged)"
            case .readOnlyFileSystem:
                "could not \(operation) \(path): the file system is read-only (the vault is unchanged)"
            case .accessDenied, .notPermitted:
                "could not \(operation) \(path): permission denied; check that you own the directory and it is writable (the vault is unchanged)"
            default:
                "could not \(operation) \(path): \(errno) (the vault is unchanged)"
            }
        case .unavailable(let why):
            "vault unavailable: \(why)"
        case .signInRequired(let why):
            why
        case .permissionDenied(let why):
            "permission denied: \(why)"
        case .internal(let why):
            "internal error: \(why)"
        case .denied(let why):
            "access denied: \(why)"
        case .absent(let what):
            what
        case .conflict(let what):
            what
        }
    }
}
