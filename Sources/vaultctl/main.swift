// vaultctl: the command line for vaultd (VaultCLI does the work).
import VaultCLI

VaultCtl.main(arguments: Array(CommandLine.arguments.dropFirst()))
