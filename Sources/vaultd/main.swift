// vaultd: the per-user vault daemon (VaultDaemon does the work).
import VaultCore
import VaultDaemon
import VaultSystem

Daemon.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current)
