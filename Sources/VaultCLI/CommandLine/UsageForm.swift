/// One way to call a command whose options depend on a choice, shown as its own line in the
/// usage text: `login supabase --url URL --anon-key KEY --email EMAIL [--service NAME]`. Forms
/// only document; the parser accepts every option of the command in every form, and the
/// command's handler says which ones a form needs.
public struct UsageForm: Sendable, Equatable {
    /// What stands for the positionals: the chosen value ("supabase") or placeholders.
    public var words: [String]
    /// Names of the command's options this form needs, shown bare, in this order.
    public var required: [String]
    /// Names of the command's options this form may take, shown in brackets.
    public var optional: [String]
    /// One line under the form in the usage text; nil for none. The command's first form has the
    /// command's summary there, so a note is for the forms after it.
    public var note: String?

    public init(_ words: [String], required: [String] = [], optional: [String] = [], note: String? = nil) {
        self.words = words
        self.required = required
        self.optional = optional
        self.note = note
    }
}
