/// What a shell offers for a value that is not one of fixed choices.
public enum ValueCompletion: Sendable, Equatable {
    /// Nothing: the user types it (a URL, an account, a label).
    case nothing
    /// Paths (`--socket`, `--client-secret-file`).
    case files
    /// The service names stored in the vault, from
    /// `VAULT_NO_AUTOSTART=1 vaultctl list 2>/dev/null | cut -f1 | sort -u`: names, never secrets,
    /// and no daemon is started to answer.
    case services
    /// vaultctl's command names (`help COMMAND`).
    case commands
}
