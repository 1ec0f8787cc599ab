import VaultCore
import VaultStores

/// The one place stores are built from the daemon's configuration: the store vaultd starts with
/// (chosen per `--backend`/`VAULT_BACKEND`), and for `migrate` and `doctor` the one not in use.
public struct StoreCatalog: Sendable {
    let configuration: DaemonConfiguration

    public init(configuration: DaemonConfiguration) {
        self.configuration = configuration
    }

    func fileStore() -> EncryptedFileStore {
        EncryptedFileStore(path: configuration.vaultFilePath, options: .init(kdfParameters: configuration.kdfParameters))
    }

    func secretServiceStore(timeout: Double? = nil) -> SecretServiceStore {
        SecretServiceStore(timeout: timeout ?? configuration.secretServiceTimeout)
    }

    /// The store to start with, and why (for the log and `status`).
    /// With `--secret-service-provider on` (what the D-Bus activation file runs) and `auto`, the
    /// file store without asking the bus: vaultd is to be the Secret Service, which needs its file
    /// store, and asking for one would wait for the activation of vaultd itself.
    public func select() -> StoreSelector.Selection {
        if configuration.secretServiceProvider == .on, configuration.backend == .auto {
            return StoreSelector.Selection(
                store: fileStore(),
                reason: "auto: vaultd is to be the Secret Service (\(configuration.secretServiceProviderOrigin) is 'on'), which serves the encrypted file store")
        }
        return StoreSelector.select(
            configuration.backend, origin: configuration.backendOrigin, environment: configuration.environment,
            secretServiceTimeout: configuration.secretServiceTimeout,
            fileStore: fileStore)
    }

    /// The store of `kind`, ready to use: the file store is unlocked with `passphrase`, or with
    /// the configured non-interactive source.
    public func openStore(_ kind: StoreKind, passphrase: SecretBytes?) throws -> any VaultStore {
        switch kind {
        case .secretService:
            let store = secretServiceStore()
            try store.probe()
            return store
        case .file:
            let store = fileStore()
            var secret = passphrase
            if secret == nil, let source = configuration.passphraseSource {
                secret = try source.read(environment: configuration.environment)
            }
            guard let secret else {
                throw store.exists
                    ? VaultError.passphraseUnavailable(
                        "the file store at \(store.path) needs its passphrase: run this on a terminal, or pipe the passphrase to 'vaultctl migrate --to file'")
                    : VaultError.passphraseUnavailable(
                        "a new file store will be created at \(store.path): run this on a terminal to choose its passphrase, or pipe one to 'vaultctl migrate --to file'",
                        creating: true)
            }
            try store.unlock(passphrase: secret)
            return store
        case .memory:
            throw VaultError.invalidInput("the in-memory store is for tests; use file or secret-service")
        }
    }
}
