#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import VaultClient
import VaultCore
import VaultSystem

/// read, run, inject: `vault://` references, all resolved over this one connection.
extension Commands {
    func read(_ arguments: ParsedArguments) throws {
        let resolved = try vault.resolve(try SecretReference(parsing: arguments.positionals[0]))
        Output.write(resolved.value)
        if Output.stdoutIsTerminal { Output.write([10]) }
    }

    func run(_ arguments: ParsedArguments) throws -> Int32 {
        let onRefresh = try arguments.options["on-refresh"].map(Self.refreshAction)
        // The environment given, then each env file's lines in order: later ones win.
        var variables = ProcessEnvironment.current
        for file in arguments.repeated["env-file"] ?? [] {
            for (name, value) in try EnvFile.load(file).variables { variables[name] = value }
        }
        // Every reference resolved before COMMAND starts: one that fails, and nothing runs.
        var references: [String: ResolvedReference] = [:]
        for (name, value) in variables.sorted(by: { $0.key < $1.key }) where SecretReference.isReference(value) {
            let resolved: ResolvedReference
            do {
                resolved = try vault.resolve(try SecretReference(parsing: value))
            } catch {
                throw VaultClientError(code: error.code, message: "\(name): \(error.message); \(arguments.positionals[0].replacingControlCharacters()) was not started")
            }
            guard !resolved.value.unprotectedBytes.contains(0) else {
                throw VaultError.invalidInput("\(name): \(resolved.reference) holds a NUL byte, which no environment variable can; \(arguments.positionals[0].replacingControlCharacters()) was not started")
            }
            references[name] = resolved
        }
        if onRefresh != nil && !references.values.contains(where: { $0.session != nil }) {
            Output.error("warning: no variable references a sign-in session, so --on-refresh has nothing to watch")
        }
        let masker = arguments.flags.contains("no-masking") ? nil : SecretMasker(references.values.map(\.value.unprotectedBytes))
        let watcher = try onRefresh == nil ? nil : TokenWatcher(references, connection: vault)
        var made: RunDirectory?
        if case .signal = onRefresh, watcher != nil {
            let directory = try RunDirectory(environment: variables)
            made = directory
            for (name, resolved) in references where resolved.session != nil {
                variables[name + "_FILE"] = try directory.write(name, resolved.value)
            }
        }
        let directory = made
        defer { directory?.remove() }

        let initial = references
        let plain = variables.filter { initial[$0.key] == nil }
        let runner = CommandRunner(
            command: arguments.positionals, masker: masker, onRefresh: onRefresh, watcher: watcher,
            environment: {
                let current = initial.merging(watcher?.latest ?? [:]) { $1 }
                return plain.map { Array("\($0.key)=\($0.value)".utf8) } + current.map { Array("\($0.key)=".utf8) + $0.value.value.unprotectedBytes }
            },
            refreshed: {
                for (name, resolved) in watcher?.latest ?? [:] {
                    masker?.add(resolved.value.unprotectedBytes)
                    try directory?.write(name, resolved.value)
                }
            })
        return try runner.run()
    }

    /// `--on-refresh restart` or a signal's name (HUP or SIGHUP).
    static func refreshAction(_ text: String) throws -> CommandRunner.RefreshAction {
        if text == "restart" { return .restart }
        let name = text.hasPrefix("SIG") ? String(text.dropFirst(3)) : text
        guard let number = CommandRunner.signalNames[name] else {
            throw ParsedArguments.UsageError(message: "--on-refresh takes restart or a signal: \(CommandRunner.signalNames.keys.sorted().joined(separator: ", "))")
        }
        return .signal(number)
    }

    func inject(_ arguments: ParsedArguments) throws {
        guard let input = arguments.options["in-file"] else { throw ParsedArguments.UsageError(message: "inject needs -i TEMPLATE") }
        let output = arguments.options["out-file"]
        let watching = arguments.flags.contains("watch")
        if watching && output == nil { throw ParsedArguments.UsageError(message: "--watch needs -o OUT") }
        if arguments.options["command"] != nil && !watching { throw ParsedArguments.UsageError(message: "--command runs only with --watch") }
        let mode = mode_t(arguments.fileMode(CommandTable.outMode) ?? 0o600)
        let bytes: [UInt8]?
        do {
            let fd = try FileDescriptor.open(input, O_RDONLY)
            bytes = try fd.closeAfter { try fd.readAll(limit: Template.maxBytes) }
        } catch let error as Errno {
            throw VaultError.invalidInput("cannot read the template \(EnvFile.shown(input)): \(error)")
        }
        guard let bytes else { throw VaultError.invalidInput("the template \(EnvFile.shown(input)) is larger than \(Template.maxBytes / 1024) KiB") }
        let template = try Template(bytes, name: EnvFile.shown(input))

        // Everything resolved before anything is written: a failing reference leaves OUT as it was.
        var resolved: [String: ResolvedReference] = [:]
        for reference in Set(template.references) {
            resolved[reference.text] = try vault.resolve(reference)
        }
        func write(_ references: [String: ResolvedReference]) throws {
            let rendered = template.render(Dictionary(uniqueKeysWithValues: references.values.map { ($0.reference, $0.value) }))
            guard let output else { return Output.write(rendered) }
            try AtomicFileWriter.write(rendered, to: output, mode: mode)
        }
        try write(resolved)
        guard watching else { return }
        guard let watcher = try TokenWatcher(resolved, connection: vault) else {
            throw ParsedArguments.UsageError(message: "--watch: the template names no sign-in session, so nothing is ever refreshed")
        }
        // Stopped by a signal, whatever mask the parent left: a signal in the middle of a write can
        // leave a temp file beside OUT (.vault-tmp-*), never a half-written OUT.
        let stopping = [SIGTERM, SIGINT, SIGHUP]
        _ = stopping.withUnsafeBufferPointer { vault_unblock_signals($0.baseAddress, Int32($0.count)) }
        while true {
            var fd = pollfd(fd: watcher.notifier.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&fd, 1, -1) > 0 else { continue }
            watcher.acknowledge()
            try write(resolved.merging(watcher.latest) { $1 })
            if let command = arguments.options["command"] { Self.runShell(command) }
        }
    }

    /// Runs `command` with /bin/sh -c and waits for it; a failure is reported, not fatal.
    static func runShell(_ command: String) {
        let environment = ProcessEnvironment.current.map { Array("\($0.key)=\($0.value)".utf8) }
        let pid = CommandRunner.spawn(["/bin/sh", "-c", command], environment: environment)
        guard pid > 0 else { return Output.error("cannot run --command: \(Errno.current)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        if status != 0 { Output.error("--command exited with status \(status >> 8 & 0xFF)") }
    }
}
