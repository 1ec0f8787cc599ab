#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore
import VaultProtocol

/// What each vaultctl command does, on top of a `VaultSession`.
struct Commands {
    let session: VaultSession

    func get(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        let result = try session.send(Request(op: .get, service: arguments.positionals[0], account: arguments.positionals[1]))
        guard let item = result.item else { throw VaultClientError(code: .internal, message: "vaultd's answer has no item") }
        if arguments.flags.contains("json") {
            Output.json(item)
            return
        }
        guard let secret = try WireSecret.decode(text: item.secret, base64: item.secretBase64, field: "secret") else {
            throw VaultClientError(code: .internal, message: "vaultd's answer has no secret")
        }
        secret.withUnsafeBytes { Output.write(Array($0)) }
        // A newline only for people: scripts get the bytes exactly.
        if Output.stdoutIsTerminal { Output.write([10]) }
    }

    func write(_ operation: Operation, _ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        let (service, account) = (arguments.positionals[0], arguments.positionals[1])
        // Check the names before asking for a secret nobody will store.
        _ = try ItemKey(service: service, account: account)
        let secret: SecretBytes
        if SecretInput.stdinIsTerminal {
            secret = try SecretInput.prompt("Secret for \(service) (\(account)): ")
        } else {
            secret = try SecretInput.readStandardInput(limit: ItemLimits.maxSecretBytes, raw: arguments.flags.contains("raw"))
        }
        let wire = WireSecret.encode(secret)
        _ = try session.send(Request(
            op: operation, service: service, account: account, secret: wire.text, secretBase64: wire.base64,
            label: arguments.options["label"], comment: arguments.options["comment"]))
    }

    func delete(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        _ = try session.send(Request(op: .delete, service: arguments.positionals[0], account: arguments.positionals[1]))
    }

    func list(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...1, "[SERVICE]")
        let items = try session.send(Request(op: .list, service: arguments.positionals.first)).items ?? []
        if arguments.flags.contains("json") {
            Output.json(items)
            return
        }
        Output.table(
            header: ["SERVICE", "ACCOUNT", "LABEL", "KIND", "MODIFIED", "SESSION"],
            rows: items.map { [$0.service, $0.account, $0.label, $0.kind, $0.modified, $0.session.map(Self.summary) ?? ""] })
    }

    func status(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        guard let status = try session.send(Request(op: .status)).status else {
            throw VaultClientError(code: .internal, message: "vaultd's answer has no status")
        }
        if arguments.flags.contains("json") {
            Output.json(status)
            return
        }
        Output.line("vaultd \(status.version) (pid \(status.pid)) on \(status.socket)")
        Output.line("store:  \(status.backend), \(status.location)")
        Output.line("why:    \(status.backendReason)")
        if status.locked {
            Output.line("state:  locked" + (status.lockReason.map { " (\($0))" } ?? ""))
            Output.line(status.exists ? "        run 'vaultctl unlock' to unlock" : "        no vault yet: 'vaultctl unlock' creates one")
        } else {
            Output.line("state:  unlocked, \(status.items.map(String.init) ?? "?") item(s)")
        }
        for session in status.sessions ?? [] {
            Output.line("session: \(session.service) (\(session.account)): \(session.session.map(Self.summary) ?? "unreadable")")
        }
    }

    /// "supabase, alice@example.com, expires 2026-11-30T12:00:00Z" or "..., NEEDS SIGN-IN".
    static func summary(_ session: SessionBody) -> String {
        var parts = [session.provider]
        if let user = session.user { parts.append(user) }
        if session.needsSignIn {
            parts.append("NEEDS SIGN-IN")
        } else if let expires = session.expiresAt {
            parts.append("expires " + expires)
        }
        return parts.joined(separator: ", ")
    }

    func lock(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        _ = try session.send(Request(op: .lock))
    }

    func unlock(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        guard let status = try session.send(Request(op: .status)).status else { return }
        if !status.locked {
            Output.error("the vault is already unlocked")
            return
        }
        guard status.backend == "file" else {
            // The Secret Service unlocks its own collection (it may show its own prompt).
            _ = try session.send(Request(op: .unlock))
            return
        }
        let passphrase: SecretBytes
        if SecretInput.stdinIsTerminal {
            passphrase = status.exists
                ? try SecretInput.prompt("Passphrase for \(status.location): ")
                : try SecretInput.prompt("New vault at \(status.location)\nChoose a passphrase: ", confirm: true)
        } else {
            guard let line = try SecretInput.readLine() else { throw VaultError.invalidInput("no passphrase on stdin") }
            passphrase = line
        }
        if passphrase.isEmpty { throw VaultError.invalidInput("an empty passphrase is refused") }
        _ = try session.send(Request(op: .unlock, passphrase: WireSecret.text(passphrase)))
        if !status.exists { Output.error("created a new vault at \(status.location)") }
    }

    func passwd(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        let current: SecretBytes, new: SecretBytes
        if SecretInput.stdinIsTerminal {
            current = try SecretInput.prompt("Current passphrase: ")
            new = try SecretInput.prompt("New passphrase: ", confirm: true)
        } else {
            // Two lines on stdin: the current passphrase, then the new one.
            guard let first = try SecretInput.readLine(), let second = try SecretInput.readLine() else {
                throw VaultError.invalidInput("passwd reads two lines on stdin: the current passphrase, then the new one")
            }
            (current, new) = (first, second)
        }
        if new.isEmpty { throw VaultError.invalidInput("an empty passphrase is refused") }
        _ = try session.send(Request(op: .changePassphrase, passphrase: WireSecret.text(current), newPassphrase: WireSecret.text(new)))
    }

    func migrate(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments (use --to file|secret-service)")
        guard let target = arguments.options["to"], ["file", "secret-service"].contains(target) else {
            throw ParsedArguments.UsageError(message: "--to must be file or secret-service")
        }
        var request = Request(op: .migrate, to: target)
        let result: ResultBody
        do {
            result = try session.send(request)
        } catch let error as VaultClientError where error.code == .locked && target == "file" && error.message.contains("passphrase") {
            // The file store needs its passphrase (or a new one): ask, then try again.
            let passphrase: SecretBytes
            if SecretInput.stdinIsTerminal {
                let creating = error.message.contains("will be created")
                passphrase = try SecretInput.prompt(creating ? "Choose a passphrase for the new file store: " : "File store passphrase: ", confirm: creating)
            } else {
                guard let line = try SecretInput.readLine() else { throw error }
                passphrase = line
            }
            request.passphrase = WireSecret.text(passphrase)
            result = try session.send(request)
        }
        guard let report = result.migration else { throw VaultClientError(code: .internal, message: "vaultd's answer has no migration report") }
        if arguments.flags.contains("json") {
            Output.json(report)
            return
        }
        Output.line("moved from the \(report.from) store to the \(report.to) store: \(report.copied) copied, \(report.alreadyPresent) already there, \(report.removed) originals removed")
        for conflict in report.conflicts {
            Output.error("kept both copies of service '\(conflict.service)' account '\(conflict.account)': the \(report.to) store already had a different secret")
        }
        Output.line("vaultd now serves from the \(report.to) store; set VAULT_BACKEND=\(report.to) (or vaultd --backend \(report.to)) to keep it after a restart")
        if !report.conflicts.isEmpty { throw VaultClientError(code: .duplicate, message: "\(report.conflicts.count) item(s) were left in the \(report.from) store because of conflicts") }
    }

    /// Exit status: 0 when the store in use works.
    func doctor(_ arguments: ParsedArguments) throws -> Bool {
        try arguments.expect(0...0, "no arguments")
        let status = try session.send(Request(op: .status)).status
        guard let report = try session.send(Request(op: .doctor)).doctor else {
            throw VaultClientError(code: .internal, message: "vaultd's answer has no doctor report")
        }
        if arguments.flags.contains("json") {
            Output.json(report)
            return report.selectedWorks
        }
        if let status { Output.line("vaultd \(status.version) (pid \(status.pid)) answers on \(status.socket)") }
        Output.line("store in use: \(report.selected) (\(report.selectedReason))")
        for store in ["secret-service", "file"] {
            Output.line("")
            Output.line(store == "file" ? "Encrypted file store" : "Secret Service")
            for check in report.checks where check.store == store {
                Output.line("  \(check.ok ? "ok  " : "FAIL") \(check.name): \(check.detail)")
            }
        }
        Output.line("")
        Output.line(report.selectedWorks ? "the store in use (\(report.selected)) works" : "the store in use (\(report.selected)) does NOT work: see FAIL above")
        return report.selectedWorks
    }

    /// Prints a valid access token; vaultd refreshes the session first when it expires within --min-ttl.
    func token(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...2, "SERVICE [ACCOUNT]")
        var minTTL = 60.0
        if let text = arguments.options["min-ttl"] {
            guard let seconds = text == "0" ? 0 : DurationText.seconds(text) else {
                throw ParsedArguments.UsageError(message: "--min-ttl takes a duration such as 60, 90s or 5m")
            }
            minTTL = seconds
        }
        let format = arguments.options["format"] ?? "raw"
        guard ["raw", "json", "env", "header", "exec-credential"].contains(format) else {
            throw ParsedArguments.UsageError(message: "--format must be raw, json, env, header or exec-credential")
        }
        var request = Request(op: .token, service: arguments.positionals[0], account: arguments.positionals.count > 1 ? arguments.positionals[1] : nil)
        request.minTTL = minTTL
        guard let token = try session.send(request).token else {
            throw VaultClientError(code: .internal, message: "vaultd's answer has no token")
        }
        switch format {
        case "json":
            Output.json(token)
        case "env":
            let name = arguments.options["env-name"] ?? "ACCESS_TOKEN"
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !name.first!.isNumber else {
                throw ParsedArguments.UsageError(message: "--env-name must be a shell variable name")
            }
            Output.line("export \(name)=\(token.accessToken)")
        case "header":
            Output.line("Authorization: \(token.tokenType.lowercased() == "bearer" ? "Bearer" : token.tokenType) \(token.accessToken)")
        case "exec-credential":
            Output.json(ExecCredential(token: token.accessToken, expirationTimestamp: token.expiresAt.map { String($0.prefix(19)) + "Z" }))
        default:
            Output.line(token.accessToken)
        }
    }

    /// kubectl's client.authentication.k8s.io/v1 ExecCredential.
    struct ExecCredential: Encodable {
        struct Status: Encodable {
            var token: String
            var expirationTimestamp: String?
        }
        var apiVersion = "client.authentication.k8s.io/v1"
        var kind = "ExecCredential"
        var status: Status

        init(token: String, expirationTimestamp: String?) {
            status = Status(token: token, expirationTimestamp: expirationTimestamp)
        }
    }

    /// `session import SERVICE ACCOUNT`: adopts a session obtained elsewhere (JSON on stdin).
    func importSession(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        guard !SecretInput.stdinIsTerminal else {
            throw ParsedArguments.UsageError(message: "pipe the session JSON on stdin")
        }
        let json = try SecretInput.readStandardInput(limit: ItemLimits.maxSecretBytes, raw: true)
        guard let text = json.utf8String else { throw VaultError.invalidInput("the session on stdin is not UTF-8 JSON") }
        var request = Request(op: .importSession, service: arguments.positionals[0], account: arguments.positionals[1])
        request.session = text
        // Settings the JSON may lack, e.g. for a Supabase session object: --provider supabase --url --anon-key.
        request.provider = arguments.options["provider"]
        request.url = arguments.options["url"]
        request.apiKey = arguments.options["anon-key"] ?? arguments.options["api-key"]
        request.tokenEndpoint = arguments.options["token-endpoint"]
        request.clientID = arguments.options["client-id"]
        _ = try session.send(request)
    }

    /// `login oauth2|supabase`, `signup supabase`: the password comes from a prompt or stdin, a
    /// client secret from a file, never from argv. Email and password are checked before any request.
    func signIn(_ arguments: ParsedArguments, signingUp: Bool) throws {
        try arguments.expect(1...1, "PROVIDER (oauth2 or supabase)")
        let provider = arguments.positionals[0]
        var request = Request(op: signingUp ? .signup : .login, service: arguments.options["service"], account: arguments.options["account"])
        request.provider = provider
        let who: String
        switch provider {
        case "supabase":
            guard let url = arguments.options["url"], let key = arguments.options["anon-key"], let email = arguments.options["email"] else {
                throw ParsedArguments.UsageError(message: "\(signingUp ? "signup" : "login") supabase needs --url URL --anon-key KEY --email EMAIL")
            }
            try Self.checkEmail(email)
            (request.url, request.apiKey, request.email) = (url, key, email)
            who = email
        case "firebase":
            guard let key = arguments.options["api-key"], let email = arguments.options["email"], request.service != nil else {
                throw ParsedArguments.UsageError(message: "\(signingUp ? "signup" : "login") firebase needs --api-key KEY --email EMAIL --service NAME (and --url for an emulator)")
            }
            try Self.checkEmail(email)
            (request.url, request.apiKey, request.email) = (arguments.options["url"], key, email)
            who = email
        case "oauth2" where !signingUp && arguments.flags.contains("device"):
            return try deviceSignIn(arguments)
        case "oauth2" where !signingUp:
            guard let endpoint = arguments.options["token-endpoint"], let username = arguments.options["username"], request.service != nil else {
                throw ParsedArguments.UsageError(message: "login oauth2 needs --token-endpoint URL --username NAME --service NAME")
            }
            request.tokenEndpoint = endpoint
            request.username = username
            request.clientID = arguments.options["client-id"]
            request.scope = arguments.options["scope"]
            request.url = arguments.options["revocation-endpoint"]
            request.clientSecret = try Self.clientSecret(arguments)
            who = username
        default:
            throw ParsedArguments.UsageError(message: signingUp ? "signup supports: supabase, firebase" : "login supports: oauth2, supabase, firebase")
        }
        let minimum = Int(arguments.options["min-password-length"] ?? "6") ?? 6
        let password: SecretBytes
        if SecretInput.stdinIsTerminal {
            password = try SecretInput.prompt("Password for \(who): ", confirm: signingUp)
        } else {
            guard let line = try SecretInput.readLine() else { throw VaultError.invalidInput("no password on stdin") }
            password = line
        }
        if password.count < minimum {
            throw VaultError.invalidInput("the password is shorter than \(minimum) characters, the provider's minimum; nothing was sent")
        }
        if signingUp, let hint = Self.weakPasswordHint(password) { Output.error("note: \(hint)") }
        request.password = WireSecret.text(password)
        let result = try ProgressIndicator.while("\(signingUp ? "signing up" : "signing in")") { try session.send(request) }
        if let message = result.message { Output.error(message) }
        if let item = result.item {
            Output.error("\(signingUp ? "signed up and signed in" : "signed in"): session stored as service '\(item.service)' account '\(item.account)'; 'vaultctl token \(item.service)' prints a valid access token")
        }
    }

    /// RFC 8628: show the code, then poll until it is approved on another device.
    func deviceSignIn(_ arguments: ParsedArguments) throws {
        guard let deviceEndpoint = arguments.options["device-endpoint"], let tokenEndpoint = arguments.options["token-endpoint"],
              let service = arguments.options["service"] else {
            throw ParsedArguments.UsageError(message: "login oauth2 --device needs --device-endpoint URL --token-endpoint URL --service NAME (and usually --client-id)")
        }
        let clientSecret = try Self.clientSecret(arguments)
        var start = Request(op: .deviceStart)
        (start.deviceEndpoint, start.clientID, start.clientSecret, start.scope) = (deviceEndpoint, arguments.options["client-id"], clientSecret, arguments.options["scope"])
        guard let codes = try session.send(start).device, let deviceCode = codes.deviceCode, let userCode = codes.userCode else {
            throw VaultClientError(code: .internal, message: "vaultd's answer has no device codes")
        }
        Output.error("To sign in, open \(codes.verificationURI ?? "the verification page") and enter the code: \(userCode)")
        if let complete = codes.verificationURIComplete { Output.error("(or open \(complete))") }
        var poll = Request(op: .devicePoll, service: service, account: arguments.options["account"])
        (poll.tokenEndpoint, poll.clientID, poll.clientSecret, poll.scope) = (tokenEndpoint, arguments.options["client-id"], clientSecret, arguments.options["scope"])
        poll.deviceCode = deviceCode
        poll.url = arguments.options["revocation-endpoint"]
        var interval = max(codes.interval ?? 5, 1)
        let deadline = Clock.monotonicSeconds() + (codes.expiresIn ?? 600)
        let item: ItemBody = try ProgressIndicator.while("waiting for approval") {
            while Clock.monotonicSeconds() < deadline {
                usleep(UInt32(interval * 1_000_000))
                let result = try session.send(poll)
                if let item = result.item { return item }
                if result.device?.state == "slow_down" { interval += 5 }
            }
            throw VaultError.signInRequired("the code expired before it was approved: run the login again")
        }
        Output.error("signed in: session stored as service '\(item.service)' account '\(item.account)'; 'vaultctl token \(item.service)' prints a valid access token")
    }

    func resetPassword(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "PROVIDER (supabase or firebase)")
        let provider = arguments.positionals[0]
        guard let email = arguments.options["email"] else { throw ParsedArguments.UsageError(message: "reset-password needs --email EMAIL") }
        var request = Request(op: .resetPassword)
        switch provider {
        case "supabase":
            guard let url = arguments.options["url"], let key = arguments.options["anon-key"] else {
                throw ParsedArguments.UsageError(message: "reset-password supabase needs --url URL --anon-key KEY --email EMAIL")
            }
            (request.url, request.apiKey) = (url, key)
        case "firebase":
            guard let key = arguments.options["api-key"] else {
                throw ParsedArguments.UsageError(message: "reset-password firebase needs --api-key KEY --email EMAIL (and --url for an emulator)")
            }
            (request.url, request.apiKey) = (arguments.options["url"], key)
        default:
            throw ParsedArguments.UsageError(message: "reset-password supports: supabase, firebase")
        }
        try Self.checkEmail(email)
        request.provider = provider
        request.email = email
        let result = try ProgressIndicator.while("requesting a reset email") { try session.send(request) }
        Output.error(result.message ?? "done")
    }

    func logout(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...2, "SERVICE [ACCOUNT]")
        let request = Request(op: .logout, service: arguments.positionals[0], account: arguments.positionals.count > 1 ? arguments.positionals[1] : nil)
        let result = try ProgressIndicator.while("signing out") { try session.send(request) }
        Output.error(result.message ?? "signed out")
    }

    /// The OAuth client secret from `--client-secret-file` (never from argv), without its newline.
    static func clientSecret(_ arguments: ParsedArguments) throws -> String? {
        guard let file = arguments.options["client-secret-file"] else { return nil }
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.open(file, O_RDONLY) } catch {
            throw VaultError.invalidInput("cannot read the client secret file \(file): \(error)")
        }
        guard let bytes = try descriptor.closeAfter({ try descriptor.readAll(limit: 4096) }) else {
            throw VaultError.invalidInput("the client secret file \(file) is over 4 KiB")
        }
        return String(decoding: bytes, as: UTF8.self).trimmingSuffix("\n")
    }

    static func checkEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              !email.contains(where: { $0.isWhitespace }) else {
            throw VaultError.invalidInput("'\(email)' is not an email address; nothing was sent")
        }
    }

    static func weakPasswordHint(_ password: SecretBytes) -> String? {
        let bytes = password.unprotectedBytes
        let classes = [bytes.contains { (97...122).contains($0) }, bytes.contains { (65...90).contains($0) },
                       bytes.contains { (48...57).contains($0) }, bytes.contains { $0 < 48 || $0 > 122 }].filter { $0 }.count
        if bytes.count < 10 || classes < 2 {
            return "this password is weak (short, or one kind of character); a long passphrase is stronger"
        }
        return nil
    }

}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
