// vaultd: the per-user vault daemon (VaultDaemon does the work).
import VaultCore
import VaultDaemon

Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current)
