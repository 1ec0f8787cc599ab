import VaultCore

/// Parses a command line (without the program's name) against a `CommandTable`.
///
/// The rules: the first word names the command (or an alias: `rm`, `ls`), a group's next word its
/// subcommand (`session import`). Options are `--name value` or `--name=value` (or `-n value`
/// for one with a short name); a switch takes no
/// value, and an option with choices takes one of them. `--` ends the options: every word after
/// it is a positional, and so is a lone `-`; so is every word after the positionals that come
/// before a variadic one (`run COMMAND [ARGS...]`: `run env --help` runs `env --help`). The table's global options (`--socket PATH`) may come
/// anywhere before `--`, before or after the command; given twice, the last one wins, as for any
/// option. The positionals must be as many as the command accepts, and one with choices one of
/// them. `help`, `--help`, `-h`, `help COMMAND` and `COMMAND --help` (or `-h`) ask for help;
/// `--version` is `version`. Anything else is a `UsageError`.
public struct CommandParser: Sendable {
    public var table: CommandTable

    public init(table: CommandTable = .vaultctl) {
        self.table = table
    }

    public func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var remaining = arguments[...]
        var globals: [String: String] = [:]
        // The command's words: a command, then a subcommand while it is a group.
        var spec: CommandSpec?
        while spec?.isGroup ?? true {
            guard let word = remaining.popFirst() else {
                guard let spec else { return Invocation(.usage(HelpFormatter(table: table).usage()), globalOptions: globals) }
                throw groupError(spec)
            }
            if let (option, value) = try option(word, among: table.globalOptions, from: &remaining, in: spec) {
                globals[option.name] = value
                continue
            }
            if let group = spec {
                if isHelpFlag(word) { return Invocation(.help(HelpFormatter(table: table).help(for: group)), globalOptions: globals) }
                guard let subcommand = group.subcommand(named: word) else { throw groupError(group, unknown: word) }
                spec = subcommand
            } else {
                guard let command = table.commands.first(where: { $0.isNamed(word) }) else {
                    throw UsageError(message: unknownWord(word))
                }
                spec = command
            }
        }
        guard let spec, let command = spec.command else { preconditionFailure("a spec that is not a group runs a command") }
        let name = spec.displayName

        var parsed = ParsedArguments()
        var onlyPositionals = false
        while let word = remaining.popFirst() {
            if let before = spec.wordsBeforeVariadic, parsed.positionals.count >= max(before, 1) { onlyPositionals = true }
            if onlyPositionals || !word.hasPrefix("-") || word == "-" {
                parsed.positionals.append(word)
            } else if word == "--" {
                onlyPositionals = true
            } else if isHelpFlag(word) {
                return Invocation(.help(HelpFormatter(table: table).help(for: spec)), globalOptions: globals)
            } else if let (option, value) = try option(word, among: table.globalOptions, from: &remaining, in: spec) {
                globals[option.name] = value
            } else if let (option, value) = try option(word, among: spec.options, from: &remaining, in: spec) {
                if let value { parsed.options[option.name] = value } else { parsed.flags.insert(option.name) }
                if let value, option.isRepeatable { parsed.repeated[option.name, default: []].append(value) }
            } else {
                let typed = Self.optionName(word)
                let known = (spec.options + table.globalOptions).map(\.name)
                throw UsageError(message: "unknown option '\(typed.map { "--" + $0 } ?? word)'"
                                 + (typed.map { Suggestion.hint(for: $0, among: known, prefix: "--") } ?? ""), command: name)
            }
        }

        try checkCount(of: parsed.positionals, against: spec)
        for (positional, value) in zip(spec.positionals, parsed.positionals) where !positional.choices.isEmpty && !positional.choices.contains(value) {
            throw UsageError(message: "\(positional.name) must be \(CommandSpec.list(positional.choices, "or"))", command: name)
        }
        if command == .help {
            return Invocation(.help(try help(topic: parsed.positionals)), globalOptions: globals)
        }
        return Invocation(.run(command, parsed), globalOptions: globals)
    }

    /// When `word` is one of `options` (`--name`, `--name=value`): the option, and its value
    /// (taken from the next word when not inline), or nil for a switch. Nil when it is none of them.
    private func option(_ word: String, among options: [OptionSpec], from remaining: inout ArraySlice<String>,
                        in spec: CommandSpec?) throws(UsageError) -> (OptionSpec, String?)? {
        let short = word.count == 2 && word.hasPrefix("-") ? options.first { $0.shortName.map { "-\($0)" } == word } : nil
        guard let option = short ?? Self.optionName(word).flatMap({ name in options.first { $0.name == name } }) else { return nil }
        let name = option.name
        let inline = short == nil ? word.firstIndex(of: "=").map { String(word[word.index(after: $0)...]) } : nil
        guard option.takesValue else {
            guard inline == nil else { throw UsageError(message: "--\(name) takes no value", command: spec?.displayName) }
            return (option, nil)
        }
        guard let value = inline ?? remaining.popFirst() else {
            throw UsageError(message: "--\(name) needs a value", command: spec?.displayName)
        }
        guard option.choices.isEmpty || option.choices.contains(value) else {
            throw UsageError(message: "--\(name) must be \(CommandSpec.list(option.choices, "or"))", command: spec?.displayName)
        }
        guard option.kind.value(of: value) != nil else {
            throw UsageError(message: "--\(name) \(option.kind.expectation), got '\(String(value.prefix(64)).replacingControlCharacters())'", command: spec?.displayName)
        }
        return (option, value)
    }

    /// "label" for "--label" and "--label=x"; nil for a word that is not a long option.
    private static func optionName(_ word: String) -> String? {
        guard word.hasPrefix("--") else { return nil }
        let name = word.dropFirst(2)
        return String(name.prefix { $0 != "=" })
    }

    private func isHelpFlag(_ word: String) -> Bool { table.helpFlags.contains(word) }

    /// "session: use 'vaultctl session import SERVICE ACCOUNT'".
    private func groupError(_ group: CommandSpec, unknown word: String? = nil) -> UsageError {
        let uses = group.subcommands.map { subcommand in
            "'" + ([table.program] + subcommand.path + subcommand.positionals.map(\.synopsis)).joined(separator: " ") + "'"
        }
        let unknown = word.map { "unknown subcommand '\($0)'" + Suggestion.hint(for: $0, among: group.subcommands.map(\.name)) + "; " } ?? ""
        return UsageError(message: unknown + "use " + CommandSpec.list(uses, "or"), command: group.displayName)
    }

    /// "unknown command 'lsit'; did you mean 'list'?".
    private func unknownWord(_ word: String) -> String {
        let known = table.commands.flatMap { [$0.name] + $0.aliases.filter { !$0.hasPrefix("-") } }
        if word.hasPrefix("--") && word != "--" {
            return "unknown option '\(word)'" + Suggestion.hint(for: String(word.dropFirst(2)), among: table.globalOptions.map(\.name), prefix: "--")
        }
        return "unknown command '\(word)'" + Suggestion.hint(for: word, among: known)
    }

    /// Names what is missing ("missing ACCOUNT" when SERVICE was given) or says what is extra,
    /// with the command's own hint (set: secrets come from stdin, never from arguments).
    private func checkCount(of positionals: [String], against spec: CommandSpec) throws(UsageError) {
        let required = spec.positionals.filter { !$0.isOptional }
        if positionals.count < required.count {
            throw UsageError(message: "missing \(CommandSpec.describe(required[positionals.count...]))", command: spec.displayName)
        }
        if positionals.count > spec.positionalCount.upperBound {
            let expected = spec.positionalDescription
            let hint = spec.extraArgumentsHint.map { "; " + spec.filling($0, with: positionals) } ?? ""
            throw UsageError(message: "too many arguments (expected \(expected))" + hint, command: spec.displayName)
        }
    }

    /// `help`'s text for `help [COMMAND [SUBCOMMAND]]`.
    private func help(topic: [String]) throws(UsageError) -> String {
        let formatter = HelpFormatter(table: table)
        guard !topic.isEmpty else { return formatter.usage() }
        guard let spec = table.spec(path: topic) else {
            throw UsageError(message: unknownWord(topic.joined(separator: " ")))
        }
        return formatter.help(for: spec)
    }
}
