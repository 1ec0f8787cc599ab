import Testing
import VaultCore
@testable import VaultCLI

@Suite struct CommandParserTests {
    let parser = CommandParser()

    func run(_ arguments: String...) throws -> (CommandName, ParsedArguments, String?) {
        let invocation = try parser.parse(arguments)
        guard case .run(let command, let parsed) = invocation.action else {
            Issue.record("expected a command to run for \(arguments), got \(invocation.action)")
            return (.help, ParsedArguments(), nil)
        }
        return (command, parsed, invocation.socketPath)
    }

    func usageError(_ arguments: String...) -> UsageError? {
        do {
            let invocation = try parser.parse(arguments)
            Issue.record("expected a usage error for \(arguments), got \(invocation.action)")
            return nil
        } catch {
            return error
        }
    }

    func helpText(_ arguments: String...) throws -> String? { try helpText(arguments) }

    func helpText(_ arguments: [String]) throws -> String? {
        guard case .help(let text) = try parser.parse(arguments).action else { return nil }
        return text
    }

    @Test func aCommandWithItsPositionalsOptionsAndSwitches() throws {
        let (command, parsed, socket) = try run("set", "github.com", "octocat", "--label", "GitHub PAT", "--comment=ci", "--raw")
        #expect(command == .set)
        #expect(parsed == ParsedArguments(positionals: ["github.com", "octocat"], options: ["label": "GitHub PAT", "comment": "ci"], flags: ["raw"]))
        #expect(socket == nil)
    }

    @Test func valuesInlineOrInTheNextWord() throws {
        #expect(try run("token", "svc", "--format=json").1.options == ["format": "json"])
        #expect(try run("token", "svc", "--format", "json").1.options == ["format": "json"])
        // An inline value may be empty, and may hold '='.
        #expect(try run("set", "s", "a", "--label=").1.options == ["label": ""])
        #expect(try run("set", "s", "a", "--label=a=b").1.options == ["label": "a=b"])
        // The next word is the value even when it looks like an option.
        #expect(try run("set", "s", "a", "--label", "--raw").1 == ParsedArguments(positionals: ["s", "a"], options: ["label": "--raw"]))
        // The last one wins.
        #expect(try run("set", "s", "a", "--label", "one", "--label", "two").1.options == ["label": "two"])
    }

    @Test func optionsMayComeBeforeBetweenAndAfterPositionals() throws {
        #expect(try run("get", "--json", "s", "a").1 == ParsedArguments(positionals: ["s", "a"], flags: ["json"]))
        #expect(try run("get", "s", "--json", "a").1 == ParsedArguments(positionals: ["s", "a"], flags: ["json"]))
    }

    @Test func doubleDashEndsOptionsAndALoneDashIsAPositional() throws {
        #expect(try run("get", "--", "--json", "-x").1 == ParsedArguments(positionals: ["--json", "-x"]))
        #expect(try run("get", "s", "--", "--").1.positionals == ["s", "--"])
        #expect(try run("get", "-", "a").1.positionals == ["-", "a"])
        // After --, --socket is a positional too.
        #expect(try run("list", "--", "--socket").1.positionals == ["--socket"])
    }

    @Test func unknownOptionsAreUsageErrors() {
        #expect(usageError("get", "s", "a", "--no-such-flag") == UsageError(message: "unknown option '--no-such-flag'", command: "get"))
        #expect(usageError("get", "s", "a", "--no-such-flag=1")?.message == "unknown option '--no-such-flag'")
        #expect(usageError("get", "s", "a", "-x")?.message == "unknown option '-x'")
        // Each command accepts only its own options.
        #expect(usageError("get", "s", "a", "--label", "x")?.message == "unknown option '--label'")
        #expect(usageError("session", "import", "s", "a", "--email", "x")?.message == "unknown option '--email'")
    }

    @Test func valuesAndSwitchesAreChecked() {
        #expect(usageError("set", "s", "a", "--label") == UsageError(message: "--label needs a value", command: "set"))
        #expect(usageError("get", "s", "a", "--json=yes") == UsageError(message: "--json takes no value", command: "get"))
        #expect(usageError("login", "oauth2", "--device=1")?.message == "--device takes no value")
    }

    @Test func typedValuesAreCheckedOnceByTheParserAndReachHandlersTyped() throws {
        #expect(try run("token", "s", "--min-ttl", "5m").1.duration(CommandTable.minTTL) == 300)
        #expect(try run("token", "s", "--min-ttl", "0").1.duration(CommandTable.minTTL) == 0)
        #expect(try run("token", "s").1.duration(CommandTable.minTTL) == nil)
        #expect(usageError("token", "s", "--min-ttl", "soon")?.message == "--min-ttl takes a duration such as 0, 90s, 5m or 2h, got 'soon'")
        #expect(usageError("audit", "--since", "0")?.message == "--since takes a duration such as 90s, 5m or 2h, got '0'")
        #expect(try run("audit", "--since=2h").1.duration(CommandTable.auditSince) == 7200)
        #expect(try run("inject", "-i", "t", "--mode", "640").1.fileMode(CommandTable.outMode) == 0o640)
        for bad in ["0800", "1777", "rw", "", "00600"] {
            #expect(usageError("inject", "-i", "t", "--mode", bad)?.message.hasPrefix("--mode takes octal permissions") == true, "\(bad)")
        }
        #expect(try run("login", "supabase", "--min-password-length", "12").1.count(CommandTable.minPasswordLength) == 12)
        // A length that is no number was once taken as the default; now it is refused.
        #expect(usageError("login", "supabase", "--min-password-length", "six")?.message == "--min-password-length takes a whole number from 1 to 1024, got 'six'")
        #expect(usageError("login", "supabase", "--min-password-length", "99999999999999999999")?.message.contains("whole number") == true)
        #expect(try run("migrate", "--to", "file").1.choice(CommandTable.migrateTarget, as: StoreKind.self) == .file)
        #expect(try run("session", "import", "s", "a", "--provider", "firebase").1.choice(CommandTable.importProvider, as: ProviderKind.self) == .firebase)
        // Control characters in a refused value are not echoed.
        #expect(usageError("audit", "--since", "1\u{1b}[2J")?.message.contains("\u{1b}") == false)
    }

    @Test func choicesAreChecked() throws {
        #expect(usageError("token", "s", "--format", "yaml")?.message == "--format must be raw, json, env, header or exec-credential")
        #expect(usageError("migrate", "--to=tape")?.message == "--to must be file or secret-service")
        #expect(usageError("session", "import", "s", "a", "--provider", "x")?.message == "--provider must be oauth2, supabase or firebase")
        #expect(usageError("login", "ldap") == UsageError(message: "PROVIDER must be oauth2, supabase or firebase", command: "login"))
        #expect(usageError("signup", "oauth2")?.message == "PROVIDER must be supabase or firebase")
        #expect(usageError("reset-password", "oauth2")?.message == "PROVIDER must be supabase or firebase")
        for format in ["raw", "json", "env", "header", "exec-credential"] {
            #expect(try run("token", "s", "--format", format).1.options["format"] == format)
        }
        #expect(try run("migrate", "--to", "secret-service").1.options == ["to": "secret-service"])
    }

    @Test func positionalCountsComeFromTheSpec() throws {
        // Only what is missing is named: SERVICE was given.
        #expect(usageError("get", "only-service") == UsageError(message: "missing ACCOUNT", command: "get"))
        #expect(usageError("get") == UsageError(message: "missing SERVICE ACCOUNT", command: "get"))
        // A secret typed as a third argument: say where secrets come from, without repeating it.
        let extra = usageError("set", "svc", "argv", "hunter2")
        #expect(extra == UsageError(message: "too many arguments (expected SERVICE ACCOUNT); secrets are read from stdin, never from arguments: printf '%s' \"$TOKEN\" | vaultctl set svc argv", command: "set"))
        #expect(extra?.description.contains("hunter2") == false)
        // Names that would need quoting in a shell stay placeholders.
        #expect(usageError("add", "my svc", "a;b", "x")?.message.hasSuffix("| vaultctl add SERVICE ACCOUNT") == true)
        #expect(usageError("list", "a", "b")?.message == "too many arguments (expected [SERVICE])")
        #expect(usageError("status", "x")?.message == "too many arguments (expected no arguments)")
        #expect(usageError("token")?.message == "missing SERVICE")
        #expect(usageError("login")?.message == "missing PROVIDER (oauth2, supabase or firebase)")
        #expect(usageError("version", "x")?.message == "too many arguments (expected no arguments)")
        #expect(try run("token", "s").1.positionals == ["s"])
        #expect(try run("token", "s", "a").1.positionals == ["s", "a"])
        #expect(try run("list").1.positionals == [])
    }

    @Test func socketIsGlobalAndMayComeAnywhereBeforeDoubleDash() throws {
        #expect(try run("--socket", "/run/v.sock", "status").2 == "/run/v.sock")
        #expect(try run("--socket=/run/v.sock", "status").2 == "/run/v.sock")
        let (command, parsed, socket) = try run("get", "s", "--socket", "/run/v.sock", "a", "--json")
        #expect(command == .get && socket == "/run/v.sock")
        #expect(parsed == ParsedArguments(positionals: ["s", "a"], flags: ["json"]))
        #expect(try run("session", "--socket", "/x", "import", "s", "a").2 == "/x")
        #expect(try run("--socket", "/a", "status", "--socket=/b").2 == "/b")
        #expect(usageError("--socket") == UsageError(message: "--socket needs a value"))
        #expect(usageError("status", "--socket") == UsageError(message: "--socket needs a value", command: "status"))
    }

    @Test func aliasesNameTheirCommand() throws {
        #expect(try run("rm", "s", "a").0 == .delete)
        #expect(try run("ls").0 == .list)
        #expect(try run("--version").0 == .version)
        #expect(try run("version").0 == .version)
        #expect(usageError("rm", "s", "a", "b")?.command == "delete")
    }

    @Test func subcommands() throws {
        let (command, parsed, _) = try run("session", "import", "example", "alice", "--provider", "supabase", "--url", "https://p.supabase.co", "--anon-key", "k")
        #expect(command == .sessionImport)
        #expect(parsed.options == ["provider": "supabase", "url": "https://p.supabase.co", "anon-key": "k"])
        let use = UsageError(message: "use 'vaultctl session import SERVICE ACCOUNT'", command: "session")
        #expect(usageError("session") == use)
        #expect(usageError("session", "export") == UsageError(message: "unknown subcommand 'export' (did you mean 'import'?); " + use.message, command: "session"))
        #expect(usageError("session", "--json", "import") == UsageError(message: "unknown subcommand '--json'; " + use.message, command: "session"))
        #expect(usageError("session", "import", "s")?.command == "session import")
    }

    @Test func unknownAndMissingCommands() throws {
        #expect(usageError("frobnicate") == UsageError(message: "unknown command 'frobnicate'"))
        #expect(usageError("--json") == UsageError(message: "unknown option '--json'"))
        #expect(usageError("--") == UsageError(message: "unknown command '--'"))
        let usage = HelpFormatter().usage()
        #expect(try parser.parse([]).action == .usage(usage))
        #expect(try parser.parse(["--socket", "/x"]) == Invocation(.usage(usage), globalOptions: ["socket": "/x"]))
    }

    @Test func helpInEveryForm() throws {
        let formatter = HelpFormatter()
        for arguments in [["help"], ["--help"], ["-h"]] {
            #expect(try parser.parse(arguments).action == .help(formatter.usage()))
        }
        let token = formatter.help(for: CommandTable.vaultctl.spec(.token))
        for arguments in [["help", "token"], ["--help", "token"], ["-h", "token"], ["token", "--help"], ["token", "-h"],
                          ["token", "s", "--format", "json", "--help"], ["--socket", "/x", "token", "--help"]] {
            #expect(try helpText(arguments) == token, "\(arguments)")
        }
        // Help wins over missing positionals, but not over an earlier error.
        #expect(try helpText("get", "--help") == formatter.help(for: CommandTable.vaultctl.spec(.get)))
        #expect(usageError("get", "--bogus", "--help")?.message == "unknown option '--bogus'")
        // After --, --help is a positional.
        #expect(usageError("get", "--", "--help")?.message == "missing ACCOUNT")
        // An alias, a group and a subcommand.
        #expect(try helpText("help", "rm") == formatter.help(for: CommandTable.vaultctl.spec(.delete)))
        let session = try #require(CommandTable.vaultctl.spec(path: ["session"]))
        #expect(try helpText("help", "session") == formatter.help(for: session))
        #expect(try helpText("session", "--help") == formatter.help(for: session))
        let sessionImport = formatter.help(for: CommandTable.vaultctl.spec(.sessionImport))
        #expect(try helpText("help", "session", "import") == sessionImport)
        #expect(try helpText("session", "import", "-h") == sessionImport)
        #expect(try helpText("help", "--help") == formatter.help(for: CommandTable.vaultctl.spec(.help)))
        #expect(usageError("help", "frobnicate") == UsageError(message: "unknown command 'frobnicate'"))
        #expect(usageError("help", "get", "more") == UsageError(message: "unknown command 'get more'"))
        #expect(usageError("help", "a", "b", "c")?.message == "too many arguments (expected [COMMAND] [SUBCOMMAND])")
    }

    @Test func everyCommandRunsWithEveryOptionItDeclares() throws {
        let table = CommandTable.vaultctl
        for spec in table.allSpecs where !spec.isGroup && spec.command != .help {
            var positionals: [String] = []
            var options: [String] = []
            var expected = ParsedArguments()
            for positional in spec.positionals {
                let value = positional.choices.first ?? positional.name.lowercased()
                positionals.append(value)
                expected.positionals.append(value)
            }
            for option in spec.options {
                if option.takesValue {
                    let typed: String? = switch option.kind {
                    case .text: nil
                    case .duration: "90s"
                    case .count(let range): String(range.upperBound)
                    case .fileMode: "0640"
                    }
                    let value = option.choices.last ?? typed ?? "value-of-\(option.name)"
                    options += [option.spelling, value]
                    expected.options[option.name] = value
                    if option.isRepeatable { expected.repeated[option.name] = [value] }
                } else {
                    options.append(option.spelling)
                    expected.flags.insert(option.name)
                }
            }
            // After a variadic command's first positional, every word is the command's own.
            let arguments = spec.path + (spec.wordsBeforeVariadic == nil ? positionals + options : options + positionals)
            let invocation = try parser.parse(arguments)
            #expect(invocation.action == .run(try #require(spec.command), expected), "\(arguments)")
        }
    }

    @Test func usageErrorsSayWhichCommandAndWhereHelpIs() {
        #expect(UsageError(message: "missing SERVICE ACCOUNT", command: "get").description == "get: missing SERVICE ACCOUNT; run 'vaultctl help get'")
        #expect(UsageError(message: "unknown command 'x'").description == "unknown command 'x'; run 'vaultctl help'")
        // A handler's error gets the command; one that has a command keeps it.
        #expect(ParsedArguments.UsageError(message: "bad").within(.token) == UsageError(message: "bad", command: "token"))
        #expect(UsageError(message: "bad", command: "session import").within(.token).command == "session import")
    }

    @Test func expectChecksTheCount() throws {
        let two = ParsedArguments(positionals: ["a", "b"])
        try two.expect(1...2, "SERVICE [ACCOUNT]")
        #expect(throws: UsageError(message: "missing SERVICE ACCOUNT")) { try ParsedArguments(positionals: ["a"]).expect(2...2, "SERVICE ACCOUNT") }
        #expect(throws: UsageError(message: "too many arguments (expected no arguments)")) { try two.expect(0...0, "no arguments") }
    }

    @Test func typosGetTheClosestCommandOrOption() {
        #expect(usageError("lsit")?.message == "unknown command 'lsit' (did you mean 'list'?)")
        #expect(usageError("stauts")?.message == "unknown command 'stauts' (did you mean 'status'?)")
        #expect(usageError("gte", "s", "a")?.message == "unknown command 'gte' (did you mean 'get'?)")
        #expect(usageError("sesion")?.message == "unknown command 'sesion' (did you mean 'session'?)")
        #expect(usageError("get", "s", "a", "--jsno")?.message == "unknown option '--jsno' (did you mean '--json'?)")
        #expect(usageError("set", "s", "a", "--lable=x")?.message == "unknown option '--lable' (did you mean '--label'?)")
        #expect(usageError("status", "--sockt", "/x")?.message == "unknown option '--sockt' (did you mean '--socket'?)")
        #expect(usageError("--sockt", "/x", "status")?.message == "unknown option '--sockt' (did you mean '--socket'?)")
        #expect(usageError("session", "imprt")?.message.hasPrefix("unknown subcommand 'imprt' (did you mean 'import'?)") == true)
        #expect(usageError("help", "lsit")?.message == "unknown command 'lsit' (did you mean 'list'?)")
        // Nothing close: no guess.
        #expect(usageError("frobnicate")?.message == "unknown command 'frobnicate'")
        #expect(usageError("x")?.message == "unknown command 'x'")
        #expect(usageError("get", "s", "a", "--zzzzzz")?.message == "unknown option '--zzzzzz'")
    }
}

@Suite struct RunAndInjectParsingTests {
    let parser = CommandParser()

    func parsed(_ arguments: String...) throws -> ParsedArguments? {
        guard case .run(_, let parsed) = try parser.parse(arguments).action else { return nil }
        return parsed
    }

    @Test func everythingAfterTheCommandOrDashDashIsUntouched() throws {
        let afterDashes = try parsed("run", "--env-file", "a.env", "--env-file=b.env", "--", "env", "--help", "--socket", "x", "--", "-h")
        #expect(afterDashes?.positionals == ["env", "--help", "--socket", "x", "--", "-h"])
        #expect(afterDashes?.repeated["env-file"] == ["a.env", "b.env"] && afterDashes?.options["env-file"] == "b.env")
        let bare = try parsed("run", "--no-masking", "printenv", "--on-refresh", "restart")
        #expect(bare?.positionals == ["printenv", "--on-refresh", "restart"] && bare?.flags == ["no-masking"] && bare?.options.isEmpty == true)
        #expect(throws: UsageError.self) { try parser.parse(["run"]) }
        #expect(throws: UsageError.self) { try parser.parse(["run", "--"]) }
        #expect(throws: UsageError.self) { try parser.parse(["run", "--bogus", "--", "x"]) }
    }

    @Test func injectShortOptions() throws {
        let inject = try parsed("inject", "-i", "t.tpl", "-o", "out", "--mode", "0640", "--watch")
        #expect(inject?.options == ["in-file": "t.tpl", "out-file": "out", "mode": "0640"] && inject?.flags == ["watch"])
        #expect(throws: UsageError.self) { try parser.parse(["inject", "-i"]) }
        #expect(throws: UsageError.self) { try parser.parse(["inject", "-x", "y"]) }
        #expect(throws: UsageError.self) { try parser.parse(["read"]) }
    }
}
