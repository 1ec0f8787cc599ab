extension DaemonConfiguration {
    /// Descriptors kept for everything but client connections: standard streams and the log, the
    /// listening socket and its lock, the vault file and its temporary copy, D-Bus, HTTPS to sign-in
    /// providers, and the dispatch library's own.
    public static let descriptorsReserved = 32

    /// Descriptors one connection may hold: its socket, its peer's pidfd and /proc/PID directory
    /// (`PeerProcess`), and one file at a time while its request is answered (/proc while the
    /// caller is identified, the audit log while a record is appended).
    public static let descriptorsPerConnection = 4

    /// Lowers `maxConnections` so that every admitted connection can have its descriptors under an
    /// open-file limit of `limit`: past it, accepting would fail with EMFILE instead of refusing or
    /// evicting cleanly. Returns a line for the log when it lowered it.
    public mutating func fitConnections(toOpenFileLimit limit: Int) -> String? {
        let allowed = max(1, (limit - Self.descriptorsReserved) / Self.descriptorsPerConnection)
        guard maxConnections > allowed else { return nil }
        defer { maxConnections = allowed }
        return "--max-connections lowered from \(maxConnections) to \(allowed): the open-file limit is \(limit) "
            + "(raise it with 'ulimit -n' or LimitNOFILE= for more)"
    }
}
