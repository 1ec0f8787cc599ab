#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore

/// What each vaultctl command does, on top of a `VaultConnection`: one method per command, in
/// `Commands+Items.swift`, `Commands+Vault.swift` and `Commands+Sessions.swift`. `VaultCtl` parses
/// the command line (with the command table) and calls them.
struct Commands {
    let vault: VaultConnection
}
