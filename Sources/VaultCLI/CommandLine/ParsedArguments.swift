/// The arguments of one command, split by `CommandParser` and already checked against the
/// command's spec: every option is one it declares, with a value exactly when it takes one and
/// one of its choices when it has some, and the number of positionals is one it accepts.
public struct ParsedArguments: Sendable, Equatable {
    public var positionals: [String]
    /// The options that take a value, by name without dashes; the last one given wins.
    public var options: [String: String]
    /// The switches given, by name without dashes.
    public var flags: Set<String>
    /// Every value of a repeatable option, in the order given (`options` holds the last one).
    public var repeated: [String: [String]]

    /// So handlers can keep throwing `ParsedArguments.UsageError(message: ...)`.
    public typealias UsageError = VaultCLI.UsageError

    public init(positionals: [String] = [], options: [String: String] = [:], flags: Set<String> = [], repeated: [String: [String]] = [:]) {
        self.positionals = positionals
        self.options = options
        self.flags = flags
        self.repeated = repeated
    }

    /// A usage error unless `count` positionals were given; `names` says which ("SERVICE [ACCOUNT]").
    public func expect(_ count: ClosedRange<Int>, _ names: String) throws(UsageError) {
        guard count.contains(positionals.count) else {
            throw UsageError(message: positionals.count < count.lowerBound ? "missing \(names)" : "too many arguments (expected \(names))")
        }
    }
}
