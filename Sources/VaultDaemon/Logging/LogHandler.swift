/// Where log lines go. One line per event; callers never pass secrets.
public protocol LogHandler: Sendable {
    func log(level: LogLevel, message: String)
}

/// Severities, with their syslog priorities (for the journal's `<N>` prefixes).
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case debug = 7, info = 6, notice = 5, warning = 4, error = 3

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue > rhs.rawValue }

    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
