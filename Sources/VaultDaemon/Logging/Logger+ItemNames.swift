extension Logger {
    /// An `info` line about an item. Item names are confidential (the file store encrypts them),
    /// so the line names the item only when debug lines are logged too (`--verbose`).
    public func info(_ message: @autoclosure () -> String, naming item: @autoclosure () -> String) {
        guard LogLevel.info >= minimumLevel else { return }
        log(.info, minimumLevel <= .debug ? "\(message()): \(item())" : message())
    }

    /// A `warning` line about an item, naming it as `info(_:naming:)` does.
    public func warning(_ message: @autoclosure () -> String, naming item: @autoclosure () -> String) {
        guard LogLevel.warning >= minimumLevel else { return }
        log(.warning, minimumLevel <= .debug ? "\(message()): \(item())" : message())
    }
}
