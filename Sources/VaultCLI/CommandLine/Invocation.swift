/// What `CommandParser` makes of a command line.
public struct Invocation: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Run the command's handler with its arguments (never `.help`, answered with `.help(text)`).
        case run(CommandName, ParsedArguments)
        /// `help`, `--help`, `-h`, `help COMMAND`, `COMMAND --help`: print the text on stdout, exit 0.
        case help(String)
        /// No command at all: print the text (the usage) on stderr, exit 2.
        case usage(String)
    }

    public var action: Action
    /// The table's global options that were given (`socket`), by name without dashes; they may
    /// come anywhere before `--`, before or after the command.
    public var globalOptions: [String: String]

    public init(_ action: Action, globalOptions: [String: String] = [:]) {
        self.action = action
        self.globalOptions = globalOptions
    }

    /// `--socket PATH`: the daemon's socket, when given.
    public var socketPath: String? { globalOptions["socket"] }
}
