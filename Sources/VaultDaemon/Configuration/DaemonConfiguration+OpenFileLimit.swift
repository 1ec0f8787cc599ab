extension DaemonConfiguration {
    /// Descriptors kept for everything but client connections: standard streams and the log, the
    /// listening socket and its lock, the vault file and its temporary copy, D-Bus, HTTPS to sign-in
    /// providers, and the dispatch library's own.
    public static let descriptorsReserved = 32

    /// Lowers `maxConnections` so that every admitted connection can have its descriptor under an
    /// open-file limit of `limit`: past it, accepting would fail with EMFILE instead of refusing or
    /// evicting cleanly. Returns a line for the log when it lowered it.
    public mutating func fitConnections(toOpenFileLimit limit: Int) -> String? {
        let allowed = max(1, limit - Self.descriptorsReserved)
        guard maxConnections > allowed else { return nil }
        defer { maxConnections = allowed }
        return "--max-connections lowered from \(maxConnections) to \(allowed): the open-file limit is \(limit) "
            + "(raise it with 'ulimit -n' or LimitNOFILE= for more)"
    }
}
