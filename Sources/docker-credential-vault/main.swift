// docker-credential-vault: Docker's credential helper over vault (VaultHelpers does the work).
import VaultHelpers

DockerCredentialHelper.main(arguments: Array(CommandLine.arguments.dropFirst()))
