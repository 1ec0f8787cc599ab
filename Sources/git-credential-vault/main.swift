// git-credential-vault: git's credential helper over vault (VaultHelpers does the work).
import VaultHelpers

GitCredentialHelper.main(arguments: Array(CommandLine.arguments.dropFirst()))
