/// One positional argument of a command, such as SERVICE or the PROVIDER of `login`.
public struct PositionalSpec: Sendable, Equatable {
    /// The placeholder in help: "SERVICE".
    public var name: String
    /// Optional ones come after the required ones: `token SERVICE [ACCOUNT]`.
    public var isOptional: Bool
    /// The only values accepted, when there is a fixed set (`login oauth2|supabase|firebase`).
    public var choices: [String]
    /// What the shells complete when there are no fixed choices.
    public var completion: ValueCompletion
    /// One line for `vaultctl help COMMAND`.
    public var help: String
    /// Takes every word that is left (`run COMMAND [ARGS...]`); only the last positional may.
    /// The parser stops looking for options once the positionals before it are given, so the
    /// words of a command (`run env --help`) reach it untouched, as after `--`.
    public var isVariadic: Bool

    public init(_ name: String, optional: Bool = false, variadic: Bool = false, choices: [String] = [],
                completion: ValueCompletion = .nothing, help: String) {
        self.name = name
        self.isOptional = optional
        self.isVariadic = variadic
        self.choices = choices
        self.completion = completion
        self.help = help
    }

    /// "SERVICE", "[ACCOUNT]", "oauth2|supabase|firebase", "[ARGS...]".
    public var synopsis: String {
        let word = (choices.isEmpty ? name : choices.joined(separator: "|")) + (isVariadic ? "..." : "")
        return isOptional ? "[\(word)]" : word
    }
}
