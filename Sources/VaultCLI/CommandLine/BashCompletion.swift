/// The bash script: a `complete -F` function that finds the command typed so far, then completes
/// an option's value, an option, a command or subcommand, or a positional. It uses
/// bash-completion's `_init_completion` when loaded (which also splits `--name=value`), plain
/// `COMP_WORDS` otherwise.
struct BashCompletion {
    let table: CommandTable

    var script: String {
        let program = table.program
        let function = "_" + program
        let globalValued = table.globalOptions.filter(\.takesValue).map { $0.spelling + "=" }.joined(separator: " ")
        let topDashWords = table.globalOptions.map(\.spelling) + table.words(of: table.commands).filter { $0.hasPrefix("-") }
        let topWords = table.words(of: table.commands).filter { !$0.hasPrefix("-") }
        let commandDashWords = (["${options//=/}"] + table.globalOptions.map(\.spelling) + table.helpFlags).joined(separator: " ")

        return """
            \(CompletionScript.header(.bash, table))

            # Completes $cur from the words in $1, or from :files or :services (the vault's service names).
            \(function)_complete() {
                case $1 in
                    :files) local IFS=$'\\n'; compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
                    :services) local IFS=$'\\n'; COMPREPLY=($(compgen -W "$(\(CompletionScript.servicesCommand(table)))" -- "$cur")) ;;
                    *) COMPREPLY=($(compgen -W "$1" -- "$cur")) ;;
                esac
            }

            # Sets command to the command $1 names (aliases resolved), options to its options (those
            # that take a value end in '=') and subcommands to a group's subcommands.
            \(function)_command() {
                command=$1 options="" subcommands=""
                case $1 in
            \(commandArms().joined(separator: "\n"))
                esac
            }

            \(function)() {
                local cur prev words cword split=false
                if declare -F _init_completion >/dev/null; then
                    _init_completion -s || return
                else
                    words=("${COMP_WORDS[@]}") cword=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                fi
                # The command typed so far, and how many of its positionals come before $cur;
                # the global \(table.globalOptions.map(\.spelling).joined(separator: " ")) may come anywhere before --.
                local command="" options="" subcommands="" positionals=0 ended=false i
                for ((i = 1; i < cword; i++)); do
                    if ! $ended && [[ ${words[i]} == -?* ]]; then
                        if [[ ${words[i]} == -- && -n $command ]]; then
                            ended=true
                        elif [[ " $options \(globalValued) " == *" ${words[i]}= "* ]]; then
                            ((i++))
                        fi
                    elif [[ -z $command || -n $subcommands ]]; then
                        \(function)_command "${command:+$command }${words[i]}"
                    else
                        ((positionals++))
                    fi
                done
                if ! $ended && [[ " $options \(globalValued) " == *" $prev= "* ]]; then
                    case "$command $prev" in
            \(valueArms().joined(separator: "\n"))
                    esac
                elif [[ -z $command ]]; then
                    if [[ $cur == -* ]]; then
                        \(function)_complete "\(topDashWords.joined(separator: " "))"
                    else
                        \(function)_complete "\(topWords.joined(separator: " "))"
                    fi
                elif [[ -n $subcommands ]]; then
                    \(function)_complete "$subcommands"
                elif ! $ended && [[ $cur == -* ]]; then
                    \(function)_complete "\(commandDashWords)"
                else
                    case "$command $positionals" in
            \(positionalArms().joined(separator: "\n"))
                    esac
                fi
            }
            complete -F \(function) \(program)

            """
    }

    /// What each command that has options, aliases or subcommands sets, keyed by its names.
    private func commandArms() -> [String] {
        let pairs = table.allSpecs.map { spec in
            let parent = spec.path.dropLast().map { $0 + " " }.joined()
            var assignments: [String] = []
            if !spec.aliases.isEmpty { assignments.append("command=" + Self.pattern(spec.displayName)) }
            if !spec.options.isEmpty {
                assignments.append("options=\"" + spec.options.map { $0.spelling + ($0.takesValue ? "=" : "") }.joined(separator: " ") + "\"")
            }
            if spec.isGroup { assignments.append("subcommands=\"" + spec.subcommands.map(\.name).joined(separator: " ") + "\"") }
            return (([spec.name] + spec.aliases).map { Self.pattern(parent + $0) }.joined(separator: "|"),
                    assignments.isEmpty ? nil : assignments.joined(separator: " "))
        }
        return arms(pairs, indent: "        ")
    }

    /// How the value of each option that has something to complete completes, keyed by
    /// "COMMAND --option" (any command for a global option).
    private func valueArms() -> [String] {
        var pairs = table.globalOptions.map { ("*\" \($0.spelling)\"", action($0.values)) }
        for spec in table.runnable {
            pairs += spec.options.filter(\.takesValue).map { ("\"\(spec.displayName) \($0.spelling)\"", action($0.values)) }
        }
        return arms(pairs, indent: "            ")
    }

    /// How each positional that has something to complete completes, keyed by "COMMAND INDEX".
    private func positionalArms() -> [String] {
        let pairs = table.runnable.flatMap { spec in
            spec.positionals.enumerated().map { ("\"\(spec.displayName) \($0.offset)\"", action($0.element.values)) }
        }
        return arms(pairs, indent: "            ")
    }

    /// `case` arms, the patterns with the same action joined by `|` in the order first seen; none
    /// for a nil action.
    private func arms(_ pairs: [(String, String?)], indent: String) -> [String] {
        let actions = pairs.compactMap { pattern, action in action.map { ($0, pattern) } }
        return CompletionScript.grouped(actions).map { "\(indent)\($0.values.joined(separator: "|"))) \($0.key) ;;" }
    }

    /// The command completing `values`; nil when nothing does.
    private func action(_ values: CompletionScript.Values) -> String? {
        let complete = "_\(table.program)_complete"
        switch values {
        case .words(let words): return "\(complete) \"\(words.joined(separator: " "))\""
        case .files: return "\(complete) :files"
        case .services: return "\(complete) :services"
        case .commands: return "\(complete) \"\(table.commands.map(\.name).joined(separator: " "))\""
        case .nothing: return nil
        }
    }

    /// A case pattern: quoted when it holds a space.
    private static func pattern(_ words: String) -> String {
        words.contains(" ") ? "\"\(words)\"" : words
    }
}
