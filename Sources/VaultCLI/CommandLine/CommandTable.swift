// Every vaultctl command, declared once. `CommandParser` parses with it, `HelpFormatter` writes
// the usage text and each command's help from it, and `CompletionScript` generates the bash, zsh
// and fish completions from it (completions/ holds them, written by scripts/generate-completions;
// a test fails when they differ from what the table generates).
//
// How vaultctl uses it: `VaultCtl.main` parses with `CommandParser().parse(arguments)`, prints
// `.help(text)` on stdout and `.usage(text)` on stderr, and runs `.run(command, arguments)` through
// one switch over `CommandName` (`VaultCtl.run`), which calls the command's handler in Commands/.
// A `UsageError` a handler throws is printed as `error.within(command)`, with exit status 2.
//
// By then every option is one the command declares, a value is present exactly when the option
// takes one and is one of its choices when it has some, a value of a typed option (a duration, a
// count, octal permissions: `OptionValueKind`) has that form, the positionals are as many as the
// command accepts and PROVIDER is one of its choices. Handlers read text as
// `arguments.options["label"]`, typed values through the option's declaration
// (`arguments.duration(CommandTable.minTTL)`, `arguments.choice(CommandTable.migrateTarget, as:
// StoreKind.self)`) and switches as `arguments.flags.contains("json")`, and check only what the
// table does not express (which options a provider needs). A new option or command goes here, and
// nowhere else; then run scripts/generate-completions.

/// The commands of one program, their global options, and the closing lines of its usage text.
public struct CommandTable: Sendable {
    /// The program's name, as the usage text and the completion scripts call it.
    public var program: String
    /// The top-level commands, in the order of the usage text.
    public var commands: [CommandSpec]
    /// Options that may come anywhere before `--`, before or after the command (`--socket PATH`).
    public var globalOptions: [OptionSpec]
    /// The lines that close the usage text.
    public var epilogue: String

    public init(program: String, commands: [CommandSpec], globalOptions: [OptionSpec], epilogue: String) {
        self.program = program
        self.commands = commands
        self.globalOptions = globalOptions
        self.epilogue = epilogue
    }

    /// Every spec, groups and their subcommands included, in the order of the usage text.
    public var allSpecs: [CommandSpec] {
        commands.flatMap { [$0] + $0.subcommands }
    }

    /// The spec of a command that runs.
    public func spec(_ command: CommandName) -> CommandSpec {
        guard let spec = allSpecs.first(where: { $0.command == command }) else {
            preconditionFailure("the command table has no '\(command.rawValue)'")
        }
        return spec
    }

    /// The help command's aliases that look like options (`--help`, `-h`): help for the command
    /// they follow.
    public var helpFlags: [String] { spec(.help).aliases.filter { $0.hasPrefix("-") } }

    /// The spec named by words as typed, aliases allowed: ["rm"], ["session", "import"].
    public func spec(path words: [String]) -> CommandSpec? {
        guard let first = words.first, var spec = commands.first(where: { $0.isNamed(first) }) else { return nil }
        for word in words.dropFirst() {
            guard let subcommand = spec.subcommand(named: word) else { return nil }
            spec = subcommand
        }
        return spec
    }
}
