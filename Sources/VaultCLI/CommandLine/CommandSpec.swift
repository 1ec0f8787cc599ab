/// One vaultctl command, declared once in `CommandTable`: the parser, the help text and the
/// completion scripts are all derived from it.
public struct CommandSpec: Sendable, Equatable {
    /// The words that name it: ["get"], ["session", "import"]; a group's path is its one word.
    public var path: [String]
    /// What the parser returns for it; nil for a group, which only holds subcommands.
    public var command: CommandName?
    /// Other words for it at the same place ("rm" for delete; "--help" and "-h" for help).
    public var aliases: [String]
    /// One line for the command list, the usage text and the shells' descriptions.
    public var summary: String
    /// A paragraph or two for `vaultctl help COMMAND`, lines already broken.
    public var discussion: String
    public var positionals: [PositionalSpec]
    public var options: [OptionSpec]
    /// The usage lines when the options depend on a choice; empty: one line derived from
    /// the positionals and every option.
    public var forms: [UsageForm]
    /// A group's commands (`session import`); empty for a command that runs.
    public var subcommands: [CommandSpec]
    /// Said after "too many arguments": why the extra words are wrong and what to do instead.
    /// Positional names in it (SERVICE) are replaced by the words typed for them when those need
    /// no quoting in a shell; the extra words themselves are never repeated (they may be secrets).
    public var extraArgumentsHint: String?

    /// A command that runs.
    public init(_ command: CommandName, aliases: [String] = [], summary: String, discussion: String,
                positionals: [PositionalSpec] = [], options: [OptionSpec] = [], forms: [UsageForm] = [],
                extraArgumentsHint: String? = nil) {
        self.init(path: command.path, command: command, aliases: aliases, summary: summary, discussion: discussion,
                  positionals: positionals, options: options, forms: forms, subcommands: [])
        self.extraArgumentsHint = extraArgumentsHint
    }

    /// A word that only groups subcommands (`session`).
    public static func group(_ name: String, summary: String, discussion: String, subcommands: [CommandSpec]) -> CommandSpec {
        CommandSpec(path: [name], command: nil, aliases: [], summary: summary, discussion: discussion,
                    positionals: [], options: [], forms: [], subcommands: subcommands)
    }

    private init(path: [String], command: CommandName?, aliases: [String], summary: String, discussion: String,
                 positionals: [PositionalSpec], options: [OptionSpec], forms: [UsageForm], subcommands: [CommandSpec]) {
        self.path = path
        self.command = command
        self.aliases = aliases
        self.summary = summary
        self.discussion = discussion
        self.positionals = positionals
        self.options = options
        self.forms = forms
        self.subcommands = subcommands
    }

    /// The word typed for it at its place: "get", "import".
    public var name: String { path.last ?? "" }

    /// "get", "session import".
    public var displayName: String { path.joined(separator: " ") }

    public var isGroup: Bool { !subcommands.isEmpty }

    /// Whether `word`, typed where this command may come, names it.
    public func isNamed(_ word: String) -> Bool { word == name || aliases.contains(word) }

    public func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }

    public func subcommand(named word: String) -> CommandSpec? { subcommands.first { $0.isNamed(word) } }

    /// How many positionals it accepts.
    public var positionalCount: ClosedRange<Int> {
        positionals.filter { !$0.isOptional }.count...(positionals.last?.isVariadic == true ? Int.max : positionals.count)
    }

    /// How many positionals come before a variadic one, after which every word is a positional;
    /// nil when the command has none.
    public var wordsBeforeVariadic: Int? {
        positionals.last?.isVariadic == true ? positionals.count - 1 : nil
    }

    /// The positionals as `ParsedArguments.expect` names them: "SERVICE [ACCOUNT]",
    /// "PROVIDER (oauth2, supabase or firebase)", "no arguments".
    public var positionalDescription: String {
        guard !positionals.isEmpty else { return "no arguments" }
        return Self.describe(positionals[...])
    }

    /// "ACCOUNT", "PROVIDER (oauth2, supabase or firebase)", "SERVICE [ACCOUNT]".
    static func describe(_ positionals: ArraySlice<PositionalSpec>) -> String {
        positionals.map { positional in
            let name = positional.isOptional ? "[\(positional.name)]" : positional.name
            return positional.choices.isEmpty ? name : "\(name) (\(Self.list(positional.choices, "or")))"
        }.joined(separator: " ")
    }

    /// `template` with each positional's name replaced by the word typed for it, when that word
    /// is safe to paste into a shell unquoted.
    func filling(_ template: String, with words: [String]) -> String {
        var text = template
        for (positional, word) in zip(positionals, words) where Self.isShellSafe(word) {
            text = text.replacing(positional.name, with: word)
        }
        return text
    }

    private static func isShellSafe(_ word: String) -> Bool {
        !word.isEmpty && word.utf8.count <= 80
            && word.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "._-@:/+".unicodeScalars.contains($0)) }
    }

    /// "a, b or c".
    static func list(_ words: [String], _ conjunction: String) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}
