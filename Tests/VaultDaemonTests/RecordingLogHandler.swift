import VaultCore
import Synchronization
import VaultDaemon
import VaultSystem

/// A log handler that keeps every line, so tests can check what vaultd logs (and that no secret
/// is among it).
final class RecordingLogHandler: LogHandler {
    private let lines = AdaptiveLock<[String]>([])

    init() {}

    func log(level: LogLevel, message: String) {
        lines.withLock { $0.append("\(level): \(message)") }
    }

    var recorded: [String] { lines.withLock { $0 } }
}
