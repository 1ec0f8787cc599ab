/// The usage text (`vaultctl help`) and each command's help (`vaultctl help token`,
/// `vaultctl token --help`), written from a `CommandTable`.
public struct HelpFormatter: Sendable {
    public var table: CommandTable
    /// Lines are broken before they pass this many columns.
    public var width = 100

    /// Where a summary starts in the usage text.
    private let summaryColumn = 35
    /// Where an argument's or option's help starts in a command's help.
    private let helpColumn = 26

    public init(table: CommandTable = .vaultctl) {
        self.table = table
    }

    /// Every command's usage with its summary, then the table's closing lines.
    public func usage() -> String {
        var lines = [(["usage:", table.program] + table.globalOptions.map { "[\($0.synopsis)]" } + ["COMMAND", "[ARGS]"]).joined(separator: " "), ""]
        for spec in table.allSpecs where !spec.isGroup {
            let aliases = spec.aliases.isEmpty ? "" : " (also: \(spec.aliases.joined(separator: ", ")))"
            for (index, form) in synopses(of: spec).enumerated() {
                let usage = wrap(form, first: "  ", indent: 2 + spec.displayName.count + 1)
                let note = index == 0 ? spec.summary + aliases : spec.forms[index].note
                lines += usage.count == 1 ? aligned(usage[0], note) : usage + (note.map { [summaryPadding + $0] } ?? [])
            }
        }
        return (lines + ["", table.epilogue, ""]).joined(separator: "\n")
    }

    /// One command's (or group's) usage, discussion, arguments, subcommands and options.
    public func help(for spec: CommandSpec) -> String {
        let runnable = spec.isGroup ? spec.subcommands : [spec]
        var lines: [String] = []
        for command in runnable {
            for form in synopses(of: command) {
                let first = lines.isEmpty ? "usage: " : "       "
                lines += wrap([table.program] + form, first: first, indent: first.count + table.program.count + 1 + command.displayName.count + 1)
            }
        }
        lines += ["", spec.discussion]
        if !spec.positionals.isEmpty {
            lines += ["", "arguments:"]
            for positional in spec.positionals {
                let choices = positional.choices.isEmpty ? "" : ": " + CommandSpec.list(positional.choices, "or")
                lines += described(positional.isOptional ? "[\(positional.name)]" : positional.name, positional.help + choices)
            }
        }
        if spec.isGroup {
            lines += ["", "subcommands:"]
            for subcommand in spec.subcommands {
                lines += described(subcommand.name, subcommand.summary)
            }
        }
        lines += ["", "options:"]
        for option in spec.options + table.globalOptions {
            lines += described(option.synopsis, option.help)
        }
        lines += described(table.helpFlags.joined(separator: ", "), "show this help")
        if !spec.aliases.isEmpty {
            lines += ["", (spec.aliases.count == 1 ? "alias: " : "aliases: ") + spec.aliases.joined(separator: ", ")]
        }
        return (lines + [""]).joined(separator: "\n")
    }

    /// A command's usage lines as words, each starting with the command's path: one per form, or
    /// one with the positionals and every option.
    func synopses(of spec: CommandSpec) -> [[String]] {
        guard !spec.forms.isEmpty else {
            let options = spec.options.map { "[\($0.synopsis)]" }
            // After a variadic command's first positional every word is its own: options go first.
            if spec.wordsBeforeVariadic != nil { return [spec.path + options + ["[--]"] + spec.positionals.map(\.synopsis)] }
            return [spec.path + spec.positionals.map(\.synopsis) + options]
        }
        return spec.forms.map { form in
            spec.path + form.words
                + form.required.compactMap { spec.option(named: $0)?.synopsis }
                + form.optional.compactMap { spec.option(named: $0).map { "[\($0.synopsis)]" } }
        }
    }

    /// `line`, then `note` at the summary column, or on a line of its own when `line` reaches it.
    private func aligned(_ line: String, _ note: String?) -> [String] {
        guard let note else { return [line] }
        return line.count < summaryColumn ? [line + summaryPadding.dropFirst(line.count) + note] : [line, summaryPadding + note]
    }

    private var summaryPadding: String { String(repeating: " ", count: summaryColumn) }

    /// "  --name VALUE" with `text` at the help column (on the next line when the name reaches it).
    private func described(_ name: String, _ text: String) -> [String] {
        let start = "  " + name
        let words = text.split(separator: " ").map(String.init)
        if start.count < helpColumn - 1 {
            return wrap(words, first: start + String(repeating: " ", count: helpColumn - start.count), indent: helpColumn)
        }
        return [start] + wrap(words, first: String(repeating: " ", count: helpColumn), indent: helpColumn)
    }

    /// Words joined by spaces after `first`, broken before `width` into lines indented by `indent`.
    /// A word longer than a line gets a line of its own.
    private func wrap(_ words: [String], first: String, indent: Int) -> [String] {
        var lines: [String] = []
        var line = first
        var lineIsEmpty = true
        for word in words {
            if !lineIsEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                (line, lineIsEmpty) = (String(repeating: " ", count: indent), true)
            }
            line += (lineIsEmpty ? "" : " ") + word
            lineIsEmpty = false
        }
        return lines + [line]
    }
}
