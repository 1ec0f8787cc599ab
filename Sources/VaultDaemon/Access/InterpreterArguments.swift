/// Which script an interpreter runs, read from its argument vector with a table per interpreter.
/// An argument vector that is not fully understood names no script, so no rule for a script can
/// match it: an option that runs code of its own (`-c`, `-e`, `-m`, `-r`, `--require`), loads
/// code from elsewhere (perl's `-M` and `-I`, python's `-W` category and `-X pycache_prefix`,
/// ruby's `-r`), reads code from stdin (`-s`, `-i`, `-`) or that the table does not know, means
/// the code that runs is not (only) the script's.
enum InterpreterArguments {
    /// The interpreter family of an executable's file name (`python3.11` is python), or nil for a
    /// program that runs no script.
    enum Family: Sendable, Equatable {
        case python, shell, perl, ruby, node
        /// One that takes its script as the first argument, and no option at all.
        case plain
    }

    static func family(ofExecutable name: String) -> Family? {
        var stem = Substring(name)
        while let last = stem.last, last.isNumber || last == "." { stem = stem.dropLast() }
        switch stem {
        case "python", "pypy": return .python
        case "sh", "bash", "dash", "ksh", "mksh", "zsh": return .shell
        case "perl": return .perl
        case "ruby": return .ruby
        case "node", "nodejs": return .node
        case "php", "lua", "tclsh", "Rscript": return .plain
        default: return nil
        }
    }

    /// The script in `arguments` (argv[0] first) for an interpreter of `family`, or nil.
    static func script(_ family: Family, _ arguments: [String]) -> String? {
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return index + 1 < arguments.count ? nonEmpty(arguments[index + 1]) : nil }
            guard argument.hasPrefix("-") || (family == .shell && argument.hasPrefix("+")) else { return nonEmpty(argument) }
            guard let taken = understood(family, argument, next: index + 1 < arguments.count ? arguments[index + 1] : nil) else { return nil }
            index += 1 + taken
        }
        return nil
    }

    private static func nonEmpty(_ argument: String) -> String? { argument.isEmpty ? nil : argument }

    /// How many following arguments the option `argument` takes, or nil when it is not one that
    /// leaves the script as the only code run.
    private static func understood(_ family: Family, _ argument: String, next: String?) -> Int? {
        switch family {
        case .python:
            // Single-letter switches, which may be combined ("-uB"): none runs other code.
            return letters(argument, allowed: "bBdEIOPqsSuvx") ? 0 : nil
        case .shell:
            if argument == "-o" || argument == "+o" || argument == "-O" || argument == "+O" {
                return next.map { shellOptions.contains($0) ? 1 : nil } ?? nil
            }
            if ["--norc", "--noprofile", "--posix", "--login", "--noediting", "--verbose"].contains(argument) { return 0 }
            return letters(argument, allowed: "aeEfhkluvxBCHPT") ? 0 : nil
        case .perl:
            return letters(argument, allowed: "wWXTtls") ? 0 : nil
        case .ruby:
            return ["-w", "-v", "-d", "-W", "-W0", "-W1", "-W2", "--verbose", "--disable-gems", "--disable=gems"].contains(argument) ? 0 : nil
        case .node:
            if ["--no-warnings", "--no-deprecation", "--trace-warnings", "--enable-source-maps", "--trace-uncaught"].contains(argument) { return 0 }
            return argument.hasPrefix("--max-old-space-size=") || argument.hasPrefix("--stack-size=") ? 0 : nil
        case .plain:
            return nil
        }
    }

    /// `-` followed by one or more of `allowed` (or `+` for a shell's options turned off).
    private static func letters(_ argument: String, allowed: String) -> Bool {
        guard argument.count > 1, argument.first == "-" || argument.first == "+" else { return false }
        return argument.dropFirst().allSatisfy { allowed.contains($0) }
    }

    /// The `set -o` names a shell may be given on its command line: each changes how the script
    /// runs, none runs other code (`-o` with anything else, or bash's `-O` shopt names, is not
    /// understood: `-O extdebug` loads the debugger's code, say).
    private static let shellOptions: Set<String> = [
        "errexit", "nounset", "pipefail", "xtrace", "verbose", "noglob", "noclobber", "noexec", "allexport", "posix", "errtrace", "functrace",
    ]
}
