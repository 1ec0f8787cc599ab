import VaultCore
import VaultStores

/// Builds either store from the daemon's configuration, for `migrate` and `doctor`, which need
/// the store not in use as well as the one in use.
public struct StoreCatalog: Sendable {
    let configuration: DaemonConfiguration

    public init(configuration: DaemonConfiguration) {
        self.configuration = configuration
    }

    public func fileStore() -> EncryptedFileStore {
        EncryptedFileStore(path: configuration.vaultFilePath, options: .init(kdfParameters: configuration.kdfParameters))
    }

    public func secretServiceStore(timeout: Double? = nil) -> SecretServiceStore {
        SecretServiceStore(timeout: timeout ?? configuration.secretServiceTimeout)
    }

    /// The store named `name`, ready to use: the file store is unlocked with `passphrase`, or with
    /// the configured non-interactive source.
    public func openStore(named name: String, passphrase: SecretBytes?) throws -> any VaultStore {
        switch name {
        case "secret-service":
            let store = secretServiceStore()
            try store.probe()
            return store
        case "file":
            let store = fileStore()
            var secret = passphrase
            if secret == nil, let source = configuration.passphraseSource {
                secret = try source.read(environment: configuration.environment)
            }
            guard let secret else {
                throw VaultError.passphraseUnavailable(
                    store.fileExists
                        ? "the file store at \(store.path) needs its passphrase: run this on a terminal, or pipe the passphrase to 'vaultctl migrate --to file'"
                        : "a new file store will be created at \(store.path): run this on a terminal to choose its passphrase, or pipe one to 'vaultctl migrate --to file'")
            }
            try store.unlock(passphrase: secret)
            return store
        default:
            throw VaultError.invalidInput("unknown store '\(name)'; use file or secret-service")
        }
    }
}
