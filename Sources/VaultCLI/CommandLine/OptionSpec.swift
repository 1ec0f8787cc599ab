/// One `--name` option of a command: a switch, or an option that takes a value
/// (`--name VALUE` or `--name=VALUE`).
public struct OptionSpec: Sendable, Equatable {
    /// Without the dashes: "min-ttl".
    public var name: String
    /// The value's placeholder in help ("DURATION"); nil for a switch, which takes no value.
    public var valueName: String?
    /// The only values accepted, when there is a fixed set (`--format raw|json|...`): the parser
    /// refuses any other, and the shells complete them.
    public var choices: [String]
    /// What the shells complete for a value without fixed choices.
    public var completion: ValueCompletion
    /// One line for `vaultctl help COMMAND` and the shells' descriptions.
    public var help: String
    /// May be given more than once, every value kept in order (`ParsedArguments.repeated`), as
    /// `run --env-file A --env-file B`; otherwise the last one given wins.
    public var isRepeatable: Bool
    /// A one-letter spelling, `-i` for `--in-file`: the word alone, its value the next word.
    public var shortName: Character?
    /// What the value is, checked and converted by the parser (`OptionValueKind`).
    public var kind: OptionValueKind

    /// An option that takes a value.
    public init(_ name: String, value valueName: String, kind: OptionValueKind = .text, choices: [String] = [], completion: ValueCompletion = .nothing,
                repeatable: Bool = false, short shortName: Character? = nil, help: String) {
        self.name = name
        self.kind = kind
        self.shortName = shortName
        self.isRepeatable = repeatable
        self.valueName = valueName
        self.choices = choices
        self.completion = completion
        self.help = help
    }

    /// A switch: present or not.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        var option = OptionSpec(name, value: "", help: help)
        option.valueName = nil
        option.isRepeatable = false
        return option
    }

    public var takesValue: Bool { valueName != nil }

    /// "--name" as typed.
    public var spelling: String { "--" + name }

    /// "--json", "--label LABEL", "--format raw|json|env|header|exec-credential", "--env-file FILE...".
    public var synopsis: String {
        guard let valueName else { return spelling }
        return spelling + " " + (choices.isEmpty ? valueName : choices.joined(separator: "|")) + (isRepeatable ? "..." : "")
    }
}
