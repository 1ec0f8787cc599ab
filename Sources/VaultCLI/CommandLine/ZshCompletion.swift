/// The zsh script (`#compdef`): a function per group and per command (commands declared alike
/// share one), each an `_arguments` spec; the program's and a group's function hand the words
/// after the command word to the command's function.
struct ZshCompletion {
    let table: CommandTable

    var script: String {
        let root = "_" + table.program
        // Commands declared alike (set and add) share one function, named after the first.
        let leaves = CompletionScript.grouped(table.runnable.map { (leafBody($0), $0) })
        var functions: [String: String] = [:]
        for (_, specs) in leaves {
            for spec in specs { functions[spec.displayName] = name(of: specs[0]) }
        }
        // At the top, --help, -h and --version are options, offered once a word starts with '-'.
        let dashAliases = table.commands.flatMap { spec in
            spec.aliases.filter { $0.hasPrefix("-") }.map { Self.quote("\($0)[\(spec.summary.escapingBrackets)]") }
        }
        var parts = [servicesFunction(), describer(root + "_commands", table.commands),
                     dispatcher(root, table.commands, options: dashAliases, functions: functions)]
        for group in table.allSpecs where group.isGroup {
            parts += [describer(name(of: group) + "_commands", group.subcommands),
                      dispatcher(name(of: group), group.subcommands, options: table.helpFlags.map(helpFlag), functions: functions)]
        }
        parts += leaves.map { body, specs in
            "# \(specs.map(\.displayName).joined(separator: ", "))\n\(name(of: specs[0]))() {\n\(body)\n}"
        }
        return "#compdef \(table.program)\n" + CompletionScript.header(.zsh, table) + "\n\n"
            + parts.joined(separator: "\n\n") + "\n\n\(root) \"$@\"\n"
    }

    private func servicesFunction() -> String {
        """
        # The vault's service names.
        _\(table.program)_services() {
            local -a services
            services=(${(f)"$(\(CompletionScript.servicesCommand(table)))"})
            _describe -t services 'service' services
        }
        """
    }

    /// A function offering `specs` (names and aliases that do not start with '-') with their summaries.
    private func describer(_ function: String, _ specs: [CommandSpec]) -> String {
        let entries = specs.map { ($0.name, $0.summary) }
            + specs.flatMap { spec in spec.aliases.filter { !$0.hasPrefix("-") }.map { ($0, spec.summary) } }
        return """
            \(function)() {
                local -a commands
                commands=(
            \(entries.map { "        " + Self.quote($0.0.replacingColons + ":" + $0.1) }.joined(separator: "\n"))
                )
                _describe -t commands 'command' commands
            }
            """
    }

    /// The function of the program or a group: its options, the command word (from the function
    /// `describer` writes), then the command's own function (a group's, or `functions`' by display
    /// name) for the words after it.
    private func dispatcher(_ function: String, _ specs: [CommandSpec], options: [String], functions: [String: String]) -> String {
        let arguments = table.globalOptions.map(option) + options + [Self.quote("1:command:\(function)_commands"), Self.quote("*::argument:->argument")]
        // One arm per function, with the names and aliases of its commands.
        let arms = CompletionScript.grouped(specs.map { spec in
            (spec.isGroup ? name(of: spec) : functions[spec.displayName] ?? "", ([spec.name] + spec.aliases).joined(separator: "|"))
        })
        return """
            \(function)() {
                local curcontext=$curcontext state line
                typeset -A opt_args
                _arguments -C \\
            \(arguments.map { "        " + $0 }.joined(separator: " \\\n"))
                case $state in
                    argument)
                        case $words[1] in
            \(arms.map { "                \($0.values.joined(separator: "|"))) \($0.key) ;;" }.joined(separator: "\n"))
                        esac ;;
                esac
            }
            """
    }

    /// The body of a command's function: its options, the global ones, help, its positionals
    /// (-S: no options after `--`).
    private func leafBody(_ spec: CommandSpec) -> String {
        let positionals = spec.positionals.enumerated().map { index, positional in
            Self.quote("\(positional.isVariadic ? "*" : String(index + 1)):\(positional.isOptional ? ":" : "")\(positional.name.lowercased()):\(action(positional.values))")
        }
        let arguments = (spec.options + table.globalOptions).map(option) + table.helpFlags.map(helpFlag) + positionals
        return "    _arguments -S \\\n" + arguments.map { "        " + $0 }.joined(separator: " \\\n")
    }

    /// `'--label=[a label for listings]:label:( )'`: a value as the next word or after '='.
    private func option(_ option: OptionSpec) -> String {
        let described = option.spelling + (option.takesValue ? "=" : "") + "[" + option.help.escapingBrackets + "]"
        guard let valueName = option.valueName else { return Self.quote(described) }
        return Self.quote(described + ":\(valueName.lowercased()):" + action(option.values))
    }

    /// `'(- *)--help[show this help]'`: nothing completes after it.
    private func helpFlag(_ flag: String) -> String {
        Self.quote("(- *)\(flag)[show this help]")
    }

    private func action(_ values: CompletionScript.Values) -> String {
        switch values {
        case .words(let words): "(\(words.joined(separator: " ")))"
        case .files: "_files"
        case .services: "_\(table.program)_services"
        case .commands: "_\(table.program)_commands"
        case .nothing: "( )"
        }
    }

    /// `_vaultctl_session_import`.
    private func name(of spec: CommandSpec) -> String {
        "_" + ([table.program] + spec.path).joined(separator: "_").replacingDashes
    }

    /// A single-quoted word.
    private static func quote(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

private extension String {
    var escapingBrackets: String {
        var escaped = ""
        for character in self {
            if character == "[" || character == "]" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    var replacingColons: String { split(separator: ":", omittingEmptySubsequences: false).joined(separator: "\\:") }

    var replacingDashes: String { split(separator: "-", omittingEmptySubsequences: false).joined(separator: "_") }
}
