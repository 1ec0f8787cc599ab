/// A command line vaultctl cannot run: an unknown command or option, a missing value, the wrong
/// number of positionals. vaultctl prints `description` and exits with status 2.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong: "unknown option '--x'", "--label needs a value", "missing SERVICE ACCOUNT".
    public var message: String
    /// The command it concerns as typed in full, aliases resolved ("session import"); nil when
    /// the error came before one was named.
    public var command: String?

    public init(message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// "get: missing SERVICE ACCOUNT; run 'vaultctl help get'", or, with no command,
    /// "unknown command 'x'; run 'vaultctl help'".
    public var description: String {
        guard let command else { return "\(message); run 'vaultctl help'" }
        return "\(command): \(message); run 'vaultctl help \(command)'"
    }

    /// The same error, naming `command` unless it names one already: for the errors a command's
    /// handler throws, such as `UsageError(message: "--min-ttl takes a duration ...")`.
    public func within(_ command: CommandName) -> UsageError {
        UsageError(message: message, command: self.command ?? command.rawValue)
    }
}
