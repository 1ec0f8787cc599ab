import VaultCore
import VaultSystem

/// Programs that do what whoever runs them asks: vault's own clients (vaultctl and the credential
/// helpers read an item for any program that pipes a request into them) and an interpreter
/// allowed without a script (it runs any program's code). A rule naming one lets every program
/// that can run it read the item, so `allow` refuses them unless told that is what is meant
/// (`any_caller`, `vaultctl allow --any-caller`).
enum OpenDoors {
    static let vaultClients = ["vaultctl", "git-credential-vault", "docker-credential-vault"]

    /// The SHA-256 of vault's clients installed beside this vaultd: a copy under another name is
    /// the same door.
    private static let installedHashes: Set<String> = {
        guard let own = PeerProcess.readLink("/proc/self/exe") else { return [] }
        let directory = FileSystem.parentDirectory(of: own)
        return Set(vaultClients.compactMap { ExecutableHashes.shared.hash(ofFile: directory + "/" + $0) })
    }()

    /// Why a rule for `program` would be open to any caller, or nil.
    static func reason(_ program: CallerIdentity.Program) -> String? {
        let name = FileSystem.lastComponent(of: program.path)
        if program.interpreter == nil, InterpreterArguments.family(ofExecutable: name) != nil {
            return "\(program.path) is an interpreter: allowed without a script, it runs whatever code any program gives it"
        }
        if vaultClients.contains(name) || installedHashes.contains(program.hash) {
            return "\(program.path) is one of vault's own clients: it reads the item for any program that runs it (one can pipe a request into it)"
        }
        return nil
    }
}
