extension CommandTable {
    /// vaultctl's commands with exactly the options and positionals each accepts.
    public static let vaultctl = CommandTable(
        program: "vaultctl",
        commands: itemCommands + sessionCommands + remoteCommands + spaceCommands + accessCommands,
        globalOptions: [
            OptionSpec("socket", value: "PATH", completion: .files,
                       help: "vaultd's socket, before or after the command (default: $VAULT_SOCKET, else $XDG_RUNTIME_DIR/vault/vault.sock or ~/.local/state/vault/vault.sock)"),
        ],
        epilogue: """
            'vaultctl help COMMAND' lists a command's options.
            Secrets are never taken from the command line. Exit codes: 0 ok, 1 error, 2 usage,
            3 not found, 4 locked or sign-in required, 5 vault or remote engine unavailable (a cached
            copy past --max-age), 6 duplicate or write conflict, 7 denied by an access rule or the approver.
            """)
}
