@testable import VaultDaemon
import VaultStores
import VaultTestSupport

extension RequestDispatcher {
    /// A dispatcher over an in-memory store, configured for the file store under `directory`
    /// (minimum scrypt cost), logging at debug level to `log`.
    static func inMemory(in directory: TemporaryDirectory, log: RecordingLogHandler = RecordingLogHandler()) -> RequestDispatcher {
        var configuration = DaemonConfiguration(socketPath: directory.file("vault.sock"), vaultFilePath: directory.file("data/vault.db"), environment: [:])
        configuration.kdfParameters = .minimum
        configuration.backend = .file
        return RequestDispatcher(
            store: ActiveStore(store: InMemoryStore(), reason: "a test"), catalog: StoreCatalog(configuration: configuration),
            socketPath: configuration.socketPath, logger: Logger(handler: log, minimumLevel: .debug))
    }
}
