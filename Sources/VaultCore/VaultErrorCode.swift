/// Stable error codes, shared by the wire protocol (`error.code`) and the CLI's exit codes.
/// Never renumber or rename: clients switch on these.
public enum VaultErrorCode: String, Sendable, CaseIterable, Codable {
    case notFound = "not_found"
    case duplicate = "duplicate"
    case locked = "locked"
    case badRequest = "bad_request"
    case tooLarge = "too_large"
    case unavailable = "unavailable"
    case permissionDenied = "permission_denied"
    case `internal` = "internal"
    case wrongPassphrase = "wrong_passphrase"
    case corruptVault = "corrupt_vault"
    case unsupportedVersion = "unsupported_version"
    case busy = "busy"
    case storageError = "storage_error"
    case signInRequired = "sign_in_required"
    /// The store needs its passphrase and no source gave one: ask the user, then send it.
    case passphraseRequired = "passphrase_required"
    /// Like `passphraseRequired`, for a store that does not exist yet: ask for a new one, twice.
    case newPassphraseRequired = "new_passphrase_required"
    /// An access rule or the approver refused this caller the item (vaultctl exit status 7).
    case denied = "denied"
    /// A remote secret changed since the version this write was based on (vaultctl exit status 6).
    case conflict = "conflict"
}
