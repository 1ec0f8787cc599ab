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

    /// An option that takes a value.
    public init(_ name: String, value valueName: String, choices: [String] = [], completion: ValueCompletion = .nothing, help: String) {
        self.name = name
        self.valueName = valueName
        self.choices = choices
        self.completion = completion
        self.help = help
    }

    /// A switch: present or not.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        var option = OptionSpec(name, value: "", help: help)
        option.valueName = nil
        return option
    }

    public var takesValue: Bool { valueName != nil }

    /// "--name" as typed.
    public var spelling: String { "--" + name }

    /// "--json", "--label LABEL", "--format raw|json|env|header|exec-credential".
    public var synopsis: String {
        guard let valueName else { return spelling }
        return spelling + " " + (choices.isEmpty ? valueName : choices.joined(separator: "|"))
    }
}
