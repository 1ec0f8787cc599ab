#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol

/// Writes one line per event to stderr, in a single write(2) so lines from threads never interleave.
/// Under systemd (`JOURNAL_STREAM` set) each line starts with its syslog priority, `<3>` … `<7>`,
/// and carries no timestamp (the journal adds one); otherwise lines carry a UTC timestamp.
public struct StandardErrorLogHandler: LogHandler {
    public let journal: Bool

    public init(environment: [String: String]) {
        journal = environment["JOURNAL_STREAM"] != nil
    }

    public func log(level: LogLevel, message: String) {
        let clean = message.replacingControlCharacters()
        let line: String
        if journal {
            line = "<\(level.rawValue)>\(clean)\n"
        } else {
            line = "\(Timestamp.rfc3339(milliseconds: Clock.nowMilliseconds())) vaultd[\(getpid())] \(level): \(clean)\n"
        }
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
    }
}
