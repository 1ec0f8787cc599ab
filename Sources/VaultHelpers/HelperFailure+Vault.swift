import VaultClient

extension HelperFailure {
    /// What a helper says when vault refuses: vault's own sentence, plus what to do when the
    /// vault is locked (a helper never prompts for the passphrase), once. Classified by code.
    init(_ error: VaultClientError) {
        switch error.code {
        case .locked, .passphraseRequired, .newPassphraseRequired, .wrongPassphrase:
            let said = error.message
            if said.hasPrefix("vault is locked"), said.contains("vaultctl unlock") {
                self.init(said + "; then try again")
            } else {
                self.init("vault is locked (\(said)); unlock it with 'vaultctl unlock' and try again")
            }
        default:
            self.init(error.message)
        }
    }

    /// Runs one vault call, turning its error into the helper's.
    static func vault<T>(_ body: () throws(VaultClientError) -> T) throws(HelperFailure) -> T {
        do throws(VaultClientError) {
            return try body()
        } catch {
            throw HelperFailure(error)
        }
    }
}
