import Testing
import VaultCLI

@Suite struct CommandTableTests {
    let table = CommandTable.vaultctl

    /// vaultctl's interface as main.swift and Commands.swift had it before the table: each
    /// command's options that take a value, its switches, and how many positionals it accepts.
    static let interface: [(CommandName, valued: Set<String>, switches: Set<String>, positionals: ClosedRange<Int>)] = [
        (.get, [], ["json"], 2...2),
        (.set, ["label", "comment"], ["raw", "allow-empty", "confirm"], 2...2),
        (.add, ["label", "comment"], ["raw", "allow-empty", "confirm"], 2...2),
        (.delete, [], [], 1...2),
        (.list, [], ["json"], 0...1),
        (.status, [], ["json"], 0...0),
        (.lock, [], [], 0...0),
        (.unlock, [], [], 0...0),
        (.passwd, [], ["rewrap-only"], 0...0),
        (.token, ["min-ttl", "format", "env-name"], [], 1...2),
        (.login, signIn, ["device"], 1...1),
        (.signup, signIn, ["device"], 1...1),
        (.resetPassword, ["url", "anon-key", "api-key", "email"], [], 1...1),
        (.logout, [], ["local"], 1...2),
        (.sessionImport, ["provider", "url", "anon-key", "api-key", "token-endpoint", "client-id"], [], 2...2),
        (.awsSet, [], [], 1...1),
        (.awsCredentialProcess, [], [], 1...1),
        (.kubeconfig, ["name", "api-version"], [], 1...2),
        (.read, [], [], 1...1),
        (.run, ["env-file", "on-refresh"], ["no-masking"], 1...Int.max),
        (.inject, ["in-file", "out-file", "mode", "command"], ["watch"], 0...0),
        (.remoteAdd, ["url", "auth", "mount", "prefix", "ca-file", "max-age", "role-id", "username", "role", "jwt-file"], [], 1...1),
        (.remoteList, [], ["json"], 0...0),
        (.remoteRemove, [], [], 1...1),
        (.remoteLogin, [], ["new"], 1...1),
        (.remoteSync, [], [], 1...2),
        (.spaceCreate, ["remote", "path", "device"], [], 1...1),
        (.spaceJoin, ["remote", "path", "device", "timeout"], [], 1...1),
        (.spaceAdmit, [], [], 2...Int.max),
        (.spaceAdd, [], [], 3...3),
        (.spaceRemove, [], [], 3...3),
        (.spaceStatus, [], ["json"], 1...1),
        (.spaceRemoveDevice, [], [], 2...2),
        (.spaceSync, [], [], 1...1),
        (.spaceResolve, ["keep"], [], 3...3),
        (.write, [], ["force", "raw"], 1...1),
        (.history, [], ["json"], 1...1),
        (.allow, ["interpreter"], ["any-caller"], 3...3),
        (.disallow, [], [], 3...3),
        (.rules, [], ["json"], 2...2),
        (.approve, [], ["new-secret"], 0...0),
        (.audit, ["since"], ["follow", "json"], 0...0),
        (.doctor, [], ["json"], 0...0),
        (.migrate, ["to"], ["json"], 0...0),
        (.version, [], [], 0...0),
        (.help, [], [], 0...2),
    ]

    static let signIn: Set<String> = [
        "token-endpoint", "username", "client-id", "client-secret-file", "scope", "service", "account", "url", "anon-key",
        "api-key", "email", "min-password-length", "revocation-endpoint", "device-endpoint",
    ]

    @Test func everyCommandHasExactlyItsOptionsAndPositionals() {
        #expect(Self.interface.map { $0.0 } == CommandName.allCases)
        for (command, valued, switches, positionals) in Self.interface {
            let spec = table.spec(command)
            #expect(Set(spec.options.filter(\.takesValue).map(\.name)) == valued, "\(command)")
            #expect(Set(spec.options.filter { !$0.takesValue }.map(\.name)) == switches, "\(command)")
            #expect(spec.options.count == valued.count + switches.count, "\(command): an option declared twice")
            #expect(spec.positionalCount == positionals, "\(command)")
        }
        #expect(table.globalOptions.map(\.synopsis) == ["--socket PATH"])
    }

    @Test func namesAndAliases() {
        for command in CommandName.allCases {
            #expect(table.spec(command).path == command.path)
            #expect(table.spec(path: command.path)?.command == command)
        }
        #expect(table.spec(path: ["rm"])?.command == .delete)
        #expect(table.spec(path: ["ls"])?.command == .list)
        #expect(table.spec(path: ["session"])?.subcommands.map(\.command) == [.sessionImport])
        #expect(table.spec(path: ["session", "export"]) == nil)
        #expect(table.helpFlags == ["--help", "-h"])
        // No word names two commands.
        let words = table.commands.flatMap { [$0.name] + $0.aliases }
        #expect(Set(words).count == words.count)
    }

    @Test func choicesAndCompletions() {
        #expect(table.spec(.token).option(named: "format")?.choices == ["raw", "json", "env", "header", "exec-credential"])
        #expect(table.spec(.migrate).option(named: "to")?.choices == ["file", "secret-service"])
        #expect(table.spec(.login).positionals.first?.choices == ["oauth2", "supabase", "firebase"])
        #expect(table.globalOptions.first?.completion == .files)
        #expect(table.spec(.login).option(named: "client-secret-file")?.completion == .files)
        // Every command whose first positional is SERVICE completes the vault's services.
        for spec in table.allSpecs where spec.positionals.first?.name == "SERVICE" {
            #expect(spec.positionals.first?.completion == .services, "\(spec.displayName)")
        }
        // Optional positionals come last.
        for spec in table.allSpecs {
            let optional = spec.positionals.map(\.isOptional)
            #expect(optional == optional.sorted { !$0 && $1 }, "\(spec.displayName)")
        }
    }

    @Test func formsUseTheCommandsOwnOptionsAndChoices() {
        for spec in table.allSpecs {
            for (index, form) in spec.forms.enumerated() {
                for name in form.required + form.optional {
                    #expect(spec.option(named: name) != nil, "\(spec.displayName): a form names --\(name)")
                }
                for (word, positional) in zip(form.words, spec.positionals) where !positional.choices.isEmpty {
                    #expect(positional.choices.contains(word), "\(spec.displayName): \(word)")
                }
                // The first form shows the command's summary; a note there would never be shown.
                if index == 0 { #expect(form.note == nil, "\(spec.displayName)") }
            }
        }
    }
}
