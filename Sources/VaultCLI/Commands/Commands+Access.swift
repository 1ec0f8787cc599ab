#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore
import VaultSystem

/// allow, disallow, rules, approve, audit.
extension Commands {
    func allow(_ arguments: ParsedArguments) throws {
        try arguments.expect(3...3, "SERVICE ACCOUNT EXECUTABLE")
        let (service, account) = (arguments.positionals[0], arguments.positionals[1])
        let program = try Self.programPath(arguments.positionals[2], command: "allow")
        let interpreter = try arguments.options["interpreter"].map { try Self.programPath($0, command: "allow") } ?? Self.envInterpreter(of: program)
        let rules = try vault.allow(service: service, account: account, program: program, interpreter: interpreter, anyCaller: arguments.flags.contains("any-caller"))
        guard let pinned = rules.allowed.last else { return }
        let under = pinned.interpreter.map { " run by \($0) (sha256 \(pinned.interpreterSHA256?.prefix(16) ?? "")...)" } ?? ""
        Output.error("allowed \(pinned.path) (sha256 \(pinned.sha256.prefix(16))...)\(under) to read \(service) (\(account))")
    }

    func disallow(_ arguments: ParsedArguments) throws {
        try arguments.expect(3...3, "SERVICE ACCOUNT EXECUTABLE")
        let rules = try vault.disallow(service: arguments.positionals[0], account: arguments.positionals[1],
                                       program: try Self.programPath(arguments.positionals[2], command: "disallow", mustExist: false))
        if rules.allowed.isEmpty && !rules.confirm { Output.error("no rule is left: every program of yours can read the item again") }
    }

    func rules(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        let rules = try vault.rules(service: arguments.positionals[0], account: arguments.positionals[1])
        if arguments.flags.contains("json") {
            Output.json(rules)
            return
        }
        if rules.allowed.isEmpty && !rules.confirm {
            Output.error("no rules: every program of yours can read \(rules.service) (\(rules.account))")
            return
        }
        if rules.confirm { Output.line("confirm\teach read needs an answer from 'vaultctl approve' unless a program below asks") }
        Output.table(header: ["PROGRAM", "SHA256", "ALLOWED"], rows: rules.allowed.flatMap { program in
            [[program.path, program.sha256, program.added]] + (program.interpreter.map { [["  run by " + $0, program.interpreterSHA256 ?? "", ""]] } ?? [])
        })
    }

    /// The interpreter of a script whose `#!` line is `/usr/bin/env [-S] NAME ...`, looked up in
    /// this PATH as the script would find it; nil for anything else (vaultd reads a `#!` line
    /// that names its interpreter's path itself).
    static func envInterpreter(of path: String) throws -> String? {
        guard case .script(let words) = ProgramFile.of(path) else { return nil }
        guard let first = words.first, first.hasSuffix("/env"),
              let name = words.dropFirst().first(where: { !$0.hasPrefix("-") && !$0.contains("=") }) else { return nil }
        return try programPath(name, command: "allow")
    }

    /// The absolute path of a program as typed: a name without a slash is looked up in PATH.
    static func programPath(_ given: String, command: String, mustExist: Bool = true) throws -> String {
        if given.hasPrefix("/") { return given }
        if !given.contains("/") {
            for directory in (ProcessEnvironment.current["PATH"] ?? "").split(separator: ":") where directory.hasPrefix("/") {
                let candidate = directory + "/" + given
                if access(candidate, X_OK) == 0 { return candidate }
            }
            if mustExist { throw UsageError(message: "no program '\(given)' in PATH: give its path", command: command) }
        }
        guard let directory = ProcessEnvironment.workingDirectory else { throw UsageError(message: "cannot tell the current directory: give EXECUTABLE's absolute path", command: command) }
        return directory + "/" + given
    }

    // MARK: approve

    func approve(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        guard SecretInput.stdinIsTerminal else {
            throw UsageError(message: "vaultctl approve reads your answers from a terminal: run it in one (or a tmux pane)", command: "approve")
        }
        if arguments.flags.contains("new-secret") { return try changeApprovalSecret() }
        // Registered as an approver from this first call on, once the approval secret is proven; then say so.
        var early = try registerAsApprover()
        Output.error("approving requests for items that need confirmation; Ctrl-C to stop (requests then fail at once)")
        while true {
            let next = try early ?? vault.nextApproval(wait: 20)
            early = nil
            guard let request = next else { continue }
            Output.line(Self.describe(request))
            let deadline = Clock.monotonicSeconds() + request.expiresIn
            while true {
                Output.write(Array("[o]nce, [m]inutes N, [a]lways, [d]eny (denied in \(Int(max(0, deadline - Clock.monotonicSeconds()))) s): ".utf8))
                guard let line = try Self.readAnswer(until: deadline) else {
                    Output.line("\nno answer in time: denied")
                    break
                }
                guard let decision = Self.decision(line) else {
                    Output.line("answer o, m N (minutes), a or d")
                    continue
                }
                do {
                    try vault.answerApproval(request.id, decision)
                    Output.line(Self.done(decision))
                } catch {
                    Output.line("not answered: \(error.message)")
                }
                break
            }
        }
    }

    /// Proves the approval secret the person types (choosing it first when none is set) and
    /// returns what the first `approve_next` brought.
    private func registerAsApprover() throws -> ApprovalRequest? {
        let secret = try SecretInput.prompt("Approval secret: ")
        do {
            return try vault.nextApproval(wait: 0, secret: secret)
        } catch let error as VaultClientError where error.code == .notFound {
            Output.error("no approval secret is set yet: the one you typed becomes it. It proves to vaultd that a person answers, not a program; keep it to yourself")
            guard try SecretInput.prompt("Repeat to confirm: ") == secret else {
                throw VaultError.invalidInput("the two entries do not match; nothing was changed")
            }
            try setApprovalSecret(secret, current: nil)
            return try vault.nextApproval(wait: 0, secret: secret)
        }
    }

    /// `approve --new-secret`: the current approval secret (or the vault's passphrase), then the new one twice.
    private func changeApprovalSecret() throws {
        let current = try SecretInput.prompt("Current approval secret (or the vault's passphrase): ")
        let new = try SecretInput.prompt("New approval secret: ", confirm: true)
        try setApprovalSecret(new, current: current)
        Output.error("the approval secret was changed")
    }

    /// Sets the approval secret; asks for the vault's passphrase when vaultd needs it.
    private func setApprovalSecret(_ new: SecretBytes, current: SecretBytes?) throws {
        do {
            try vault.setApprovalSecret(new, current: current)
        } catch let error as VaultClientError where error.code == .passphraseRequired {
            try vault.setApprovalSecret(new, current: try SecretInput.prompt("The vault's passphrase (to set the approval secret): "))
        }
    }

    /// What the approver is shown. Paths come from the caller (a directory may be named with a
    /// newline): control characters are replaced, so no field can fake another line.
    static func describe(_ request: ApprovalRequest) -> String {
        let clean = { (text: String?, none: String) in (text ?? none).replacingControlCharacters() }
        var lines = ["", "request \(request.id): \(request.op) \(request.service) (\(request.account))"]
        lines.append("  by     pid \(request.pid.map(String.init) ?? "?") \(clean(request.exe, "(executable unknown)"))")
        if let script = request.script { lines.append("  script \(clean(script, ""))") }
        lines.append("  in     \(clean(request.cwd, "(unknown)"))")
        lines.append("  unit   \(clean(request.unit, "(none)"))")
        // Who started the caller, and who started that: a helper run by a program it should not serve shows here.
        for (index, parent) in request.ancestry.enumerated() {
            lines.append("  \(index == 0 ? "from  " : "      ") pid \(parent.pid) \(clean(parent.exe, "(executable unknown)")) in \(clean(parent.cwd, "(unknown)"))")
        }
        return lines.joined(separator: "\n")
    }

    static func decision(_ line: String) -> ApprovalDecision? {
        let words = line.lowercased().split(separator: " ")
        switch words.first {
        case "o", "once": return words.count == 1 ? .once : nil
        case "a", "always": return words.count == 1 ? .always : nil
        case "d", "deny", "n", "no": return words.count == 1 ? .deny : nil
        case "m", "minutes":
            guard words.count == 2, let minutes = Int(words[1]), (1...1440).contains(minutes) else { return nil }
            return .minutes(minutes)
        default: return nil
        }
    }

    static func done(_ decision: ApprovalDecision) -> String {
        switch decision {
        case .once: "approved once"
        case .minutes(let minutes): "approved for \(minutes) minutes"
        case .always: "approved always: a rule now allows this program"
        case .deny: "denied"
        }
    }

    /// One line from the terminal, or nil when none comes before `deadline` (or stdin ended).
    static func readAnswer(until deadline: Double) throws -> String? {
        let left = deadline - Clock.monotonicSeconds()
        guard left > 0, try UnixSocket.waitReadable(FileDescriptor(rawValue: 0), seconds: left),
              let line = try SecretBytes.readLine(from: FileDescriptor(rawValue: 0), maxBytes: 200) else { return nil }
        return line.utf8String?.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    // MARK: audit

    /// Prints the records; false when the log does not hold together (what is wrong on stderr).
    func audit(_ arguments: ParsedArguments) throws -> Bool {
        try arguments.expect(0...0, "no arguments")
        var since: String?
        if let seconds = arguments.duration(CommandTable.auditSince) {
            since = Timestamp.rfc3339(milliseconds: Clock.nowMilliseconds() - Int64(seconds * 1000))
        }
        let json = arguments.flags.contains("json")
        var (records, problems) = try vault.checkedAudit(since: since)
        var after: String?
        var reported = Set<String>()
        if !json && Output.stdoutIsTerminal { Output.line(["TIME", "OP", "SERVICE", "ACCOUNT", "RESULT", "PID", "EXECUTABLE", "UNIT"].joined(separator: "  ")) }
        while true {
            for record in records {
                if json {
                    Output.json(record)
                } else {
                    Output.line([record.time, record.op, record.service ?? "-", record.account ?? "-", record.result + (record.grant.map { " (\($0))" } ?? ""),
                                 record.pid.map(String.init) ?? "-", record.script.map { "\(record.exe ?? "?") \($0)" } ?? record.exe ?? "-",
                                 record.unit ?? "-"].map { $0.replacingControlCharacters() }.joined(separator: "\t"))
                }
            }
            // What does not hold, once each, after the records: stderr, and a failure exit.
            for problem in problems where reported.insert(problem).inserted { Output.error("the audit log does not hold together: \(problem)") }
            guard arguments.flags.contains("follow") else { return problems.isEmpty }
            // Records later than the last one printed; vaultd waits (bounded) for the next one.
            after = records.last?.time ?? after
            (records, problems) = try vault.checkedAudit(since: since, after: after, wait: 20)
        }
    }
}
