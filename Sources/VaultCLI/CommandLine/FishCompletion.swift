/// The fish script: helper functions that find the command typed so far and how many of its
/// positionals precede the token being completed, then `complete` lines conditioned on them: one
/// per command word, and one per option or positional for all the commands that declare it alike.
struct FishCompletion {
    let table: CommandTable

    var script: String {
        let program = table.program
        let prefix = "__" + program
        let globalValued = table.globalOptions.filter(\.takesValue).map(\.spelling).joined(separator: " ")
        var lines = [
            "complete -c \(program) -f",
        ]
        // Global options anywhere; help flags after any command too; a top-level word's dash aliases (--version) first.
        lines += table.globalOptions.map { "complete -c \(program) " + body($0) }
        lines.append("complete -c \(program) \(flags(table.helpFlags)) -d \(Self.quote("show help"))")
        for spec in table.commands {
            let dashes = spec.aliases.filter { $0.hasPrefix("-") && !table.helpFlags.contains($0) }
            if !dashes.isEmpty {
                lines.append("complete -c \(program) -n \"\(prefix)_using ''\" \(flags(dashes)) -d \(Self.quote(spec.summary))")
            }
        }
        for spec in [nil] + table.allSpecs.filter(\.isGroup).map(Optional.some) {
            let path = spec.map(\.displayName) ?? ""
            for command in spec?.subcommands ?? table.commands {
                for word in [command.name] + command.aliases where !word.hasPrefix("-") {
                    lines.append("complete -c \(program) -n \"\(prefix)_using \(Self.quote(path))\" -a \(word) -d \(Self.quote(command.summary))")
                }
            }
        }
        // Each option and positional once, for all the commands that declare it alike; keyed by
        // the test (`using`, `at INDEX`) and what the line completes.
        let declared = table.runnable.flatMap { spec in
            spec.options.map { (["using", body($0)], spec.displayName) }
                + spec.positionals.enumerated().compactMap { index, positional in
                    arguments(positional.values).map { (["at \(index)", "\($0) -d \(Self.quote(positional.help))"], spec.displayName) }
                }
        }
        lines += CompletionScript.grouped(declared).map { key, commands in
            "complete -c \(program) -n \"\(prefix)_\(key[0]) \(commands.map(Self.quote).joined(separator: " "))\" \(key[1])"
        }

        let canonical = cases(table.allSpecs.filter { !$0.aliases.isEmpty }.map { spec in
            (spec.aliases.map { (spec.path.dropLast() + [$0]).joined(separator: " ") }, "echo " + Self.quote(spec.displayName))
        } + [(["*"], "echo \"$argv\"")])
        let valued = cases(table.runnable.compactMap { spec in
            let valued = spec.options.filter(\.takesValue).map(\.spelling)
            return valued.isEmpty ? nil : ([spec.displayName], "printf '%s\\n' " + valued.joined(separator: " "))
        })
        let subcommands = cases(table.allSpecs.filter(\.isGroup).map { spec in
            ([spec.displayName], "printf '%s\\n' " + spec.subcommands.map(\.name).joined(separator: " "))
        })

        return """
            \(CompletionScript.header(.fish, table))

            # Prints how many positionals of the command typed so far come before the token being
            # completed, then that command (aliases resolved; a subcommand after its group and a
            # space; empty before one). The global \(globalValued) may come anywhere before --.
            function \(prefix)_state
                set -l words (commandline -opc)
                set -e words[1]
                set -l command ''
                set -l positionals 0
                set -l ended 0
                while set -q words[1]
                    set -l word $words[1]
                    set -e words[1]
                    if test $ended = 0; and string match -q -- '-?*' $word
                        if test $word = --; and test -n "$command"
                            set ended 1
                        else if contains -- $word \(globalValued) (\(prefix)_valued $command)
                            set -e words[1]
                        end
                    else if test -z "$command"
                        set command (\(prefix)_canonical $word)
                    else if contains -- $word (\(prefix)_subcommands $command)
                        set command (\(prefix)_canonical $command $word)
                    else
                        set positionals (math $positionals + 1)
                    end
                end
                echo $positionals
                echo $command
            end

            # The command the words name, aliases resolved.
            function \(prefix)_canonical
                switch "$argv"
            \(canonical)
                end
            end

            # The options of a command that take a value.
            function \(prefix)_valued
                switch "$argv"
            \(valued)
                end
            end

            # A group's subcommands.
            function \(prefix)_subcommands
                switch "$argv"
            \(subcommands)
                end
            end

            # Whether the command typed so far is one of $argv ('' before one).
            function \(prefix)_using
                set -l state (\(prefix)_state)
                contains -- "$state[2]" $argv
            end

            # Whether the token being completed is positional number $argv[1] (from 0) of one of the
            # commands $argv[2..].
            function \(prefix)_at
                set -l state (\(prefix)_state)
                test "$state[1]" = "$argv[1]"; and contains -- "$state[2]" $argv[2..-1]
            end

            # The vault's service names.
            function \(prefix)_services
                \(CompletionScript.servicesCommand(table))
            end

            \(lines.joined(separator: "\n"))

            """
    }

    /// `switch` cases: the patterns, each quoted, then the one command they run.
    private func cases(_ cases: [([String], String)]) -> String {
        cases.map { patterns, body in
            "        case " + patterns.map { $0 == "*" ? "'*'" : Self.quote($0) }.joined(separator: " ") + "\n            " + body
        }.joined(separator: "\n")
    }

    /// What a `complete` line says of an option: `-l format -x -a '...' -d '...'`.
    private func body(_ option: OptionSpec) -> String {
        var body = "-l \(option.name)"
        if option.takesValue { body += " " + (arguments(option.values) ?? "-x") }
        return body + " -d " + Self.quote(option.help)
    }

    /// `-s h -l help`.
    private func flags(_ words: [String]) -> String {
        words.map { $0.hasPrefix("--") ? "-l " + $0.dropFirst(2) : "-s " + $0.dropFirst() }.joined(separator: " ")
    }

    /// What completes a value: `-x -a '...'`, `-r -F` for files; nil when nothing does.
    private func arguments(_ values: CompletionScript.Values) -> String? {
        switch values {
        case .words(let words): "-x -a \(Self.quote(words.joined(separator: " ")))"
        case .files: "-r -F"
        case .services: "-x -a '(__\(table.program)_services)'"
        case .commands: "-x -a \(Self.quote(table.commands.map(\.name).joined(separator: " ")))"
        case .nothing: nil
        }
    }

    /// A single-quoted word: fish takes \' and \\ inside.
    private static func quote(_ text: String) -> String {
        var quoted = "'"
        for character in text {
            if character == "'" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "'"
    }
}
