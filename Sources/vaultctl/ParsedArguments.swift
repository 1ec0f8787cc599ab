/// A command line split into positionals and `--flag [value]` options, checked against what the
/// command accepts, so a typo is a usage error rather than a silently ignored word.
struct ParsedArguments {
    var positionals: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    struct UsageError: Error {
        let message: String
    }

    /// `valued`: options that take a value; `switches`: options that do not.
    init(_ arguments: [String], valued: Set<String>, switches: Set<String>) throws {
        var remaining = arguments[...]
        var onlyPositionals = false
        while let argument = remaining.popFirst() {
            if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
                if argument.hasPrefix("-") && argument.count > 1 && !onlyPositionals {
                    throw UsageError(message: "unknown option '\(argument)'")
                }
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if valued.contains(name) {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError(message: "--\(name) needs a value")
                }
                options[name] = value
            } else if switches.contains(name) {
                guard inlineValue == nil else { throw UsageError(message: "--\(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError(message: "unknown option '--\(name)'")
            }
        }
    }

    func expect(_ count: ClosedRange<Int>, _ names: String) throws {
        guard count.contains(positionals.count) else {
            throw UsageError(message: positionals.count < count.lowerBound ? "missing \(names)" : "too many arguments (expected \(names))")
        }
    }
}
