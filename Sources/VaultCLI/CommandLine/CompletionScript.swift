/// A shell's completion script for the table's program, generated from the table: its
/// commands with their summaries, each command's options, the fixed choices of options and
/// positionals, paths for options that take files, and the vault's service names for SERVICE.
/// completions/ holds the three scripts; scripts/generate-completions writes them.
public struct CompletionScript: Sendable {
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    public var shell: Shell
    public var table: CommandTable

    public init(_ shell: Shell, table: CommandTable = .vaultctl) {
        self.shell = shell
        self.table = table
    }

    /// Its name in completions/ (scripts/install copies it to where the shell looks).
    public var fileName: String {
        switch shell {
        case .bash: "\(table.program).bash"
        case .zsh: "_\(table.program)"
        case .fish: "\(table.program).fish"
        }
    }

    public var text: String {
        switch shell {
        case .bash: BashCompletion(table: table).script
        case .zsh: ZshCompletion(table: table).script
        case .fish: FishCompletion(table: table).script
        }
    }

    /// What a shell completes for one value.
    enum Values: Equatable {
        case words([String])
        case files
        case services
        case commands
        case nothing

        /// The fixed choices when there are some, else what `completion` says.
        init(choices: [String], completion: ValueCompletion) {
            guard choices.isEmpty else {
                self = .words(choices)
                return
            }
            switch completion {
            case .files: self = .files
            case .services: self = .services
            case .commands: self = .commands
            case .nothing: self = .nothing
            }
        }
    }

    /// The script's first lines: what it is and where it comes from.
    static func header(_ shell: Shell, _ table: CommandTable) -> String {
        """
        # \(shell.rawValue) completion for \(table.program)
        # Generated from the command table (Sources/VaultCLI/CommandLine/CommandTable.swift) by
        # scripts/generate-completions: edit the table, not this file.
        """
    }

    /// The values by key, keys in the order first seen: what several commands declare alike
    /// becomes one line of a script.
    static func grouped<Key: Equatable, Value>(_ pairs: [(Key, Value)]) -> [(key: Key, values: [Value])] {
        var groups: [(key: Key, values: [Value])] = []
        for (key, value) in pairs {
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].values.append(value)
            } else {
                groups.append((key, [value]))
            }
        }
        return groups
    }

    /// Lists the vault's service names without starting a daemon: names only, never secrets.
    static func servicesCommand(_ table: CommandTable) -> String {
        "VAULT_NO_AUTOSTART=1 \(table.program) list 2>/dev/null | cut -f1 | sort -u"
    }
}

extension OptionSpec {
    var values: CompletionScript.Values { CompletionScript.Values(choices: choices, completion: completion) }
}

extension PositionalSpec {
    var values: CompletionScript.Values { CompletionScript.Values(choices: choices, completion: completion) }
}

extension CommandTable {
    /// The commands that run, subcommands included.
    var runnable: [CommandSpec] { allSpecs.filter { !$0.isGroup } }

    /// The words that may name a command at the top or in a group: names, then aliases.
    func words(of specs: [CommandSpec]) -> [String] {
        specs.map(\.name) + specs.flatMap(\.aliases)
    }
}
