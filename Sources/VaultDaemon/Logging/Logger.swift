/// A logger: a minimum level in front of a handler.
public struct Logger: Sendable {
    public var handler: any LogHandler
    public var minimumLevel: LogLevel

    public init(handler: any LogHandler, minimumLevel: LogLevel = .info) {
        self.handler = handler
        self.minimumLevel = minimumLevel
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= minimumLevel else { return }
        handler.log(level: level, message: message())
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
