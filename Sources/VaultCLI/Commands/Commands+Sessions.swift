#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore
import VaultSystem

/// token, session import, login, signup, reset-password, logout.
extension Commands {
    /// Prints a valid access token; vaultd refreshes the session first when it expires within --min-ttl.
    func token(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...2, "SERVICE [ACCOUNT]")
        let minTTL = arguments.duration(CommandTable.minTTL) ?? 60
        // One of the table's choices (the parser checked).
        let format = arguments.options["format"] ?? "raw"
        // kubectl's request is checked before vaultd is asked for anything.
        let execVersion = format == "exec-credential" ? try ExecCredential.apiVersion(execInfo: ProcessEnvironment.current["KUBERNETES_EXEC_INFO"]) : nil
        let token = try vault.token(service: arguments.positionals[0], account: arguments.positionals.count > 1 ? arguments.positionals[1] : nil, minTTL: minTTL)
        switch format {
        case "json":
            Output.json(token)
        case "env":
            let name = arguments.options["env-name"] ?? "ACCESS_TOKEN"
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !name.first!.isNumber else {
                throw ParsedArguments.UsageError(message: "--env-name must be a shell variable name")
            }
            // Single-quoted: under eval, nothing in the token is ever shell syntax.
            Output.secretLine("export \(name)=\(Self.shellQuoted(token.accessToken))")
        case "header":
            try Self.checkHeaderSafe(token)
            Output.secretLine("Authorization: \(token.tokenType.lowercased() == "bearer" ? "Bearer" : token.tokenType) \(token.accessToken)")
        case "exec-credential":
            try Self.checkHeaderSafe(token)
            Output.json(ExecCredential(apiVersion: execVersion ?? ExecCredential.v1, token: token.accessToken, expirationTimestamp: token.expiresAt.map { String(Output.time($0).prefix(19)) + "Z" }))
        default:
            Output.secretLine(token.accessToken)
        }
    }

    /// `'...'` with every `'` written as `'\''`: the shell reads the text back unchanged.
    static func shellQuoted(_ text: String) -> String { text.shellQuoted }

    /// Formats that others parse as HTTP (a header line, kubectl's credential) carry only an
    /// access token in RFC 6750's b64token set and a token type that is an RFC 9110 token;
    /// anything else is refused, and nothing is printed.
    static func checkHeaderSafe(_ token: AccessToken) throws {
        let b64token = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".unicodeScalars)
        let body = token.accessToken.unicodeScalars
        let withoutPadding = body.prefix { $0 != "=" }
        let padding = body.dropFirst(withoutPadding.count)
        guard !withoutPadding.isEmpty, withoutPadding.allSatisfy(b64token.contains), padding.allSatisfy({ $0 == "=" }) else {
            throw VaultError.invalidInput("the access token has characters outside RFC 6750's token set, so it cannot be printed as a header; use --format json")
        }
        let tchar = Set("!#$%&'*+-.^_`|~ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars)
        guard !token.tokenType.isEmpty, token.tokenType.unicodeScalars.allSatisfy(tchar.contains) else {
            throw VaultError.invalidInput("the token type is not an HTTP token, so it cannot be printed as a header; use --format json")
        }
    }

    /// `session import SERVICE ACCOUNT`: adopts a session obtained elsewhere (JSON on stdin).
    func importSession(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        guard !SecretInput.stdinIsTerminal else {
            throw ParsedArguments.UsageError(message: "pipe the session JSON on stdin")
        }
        let json = try SecretInput.readStandardInput(limit: ItemLimits.maxSecretBytes, raw: true)
        guard json.utf8String != nil else { throw VaultError.invalidInput("the session on stdin is not UTF-8 JSON") }
        // Settings the JSON may lack, e.g. for a Supabase session object: --provider supabase --url --anon-key.
        let defaults = SessionDefaults(
            provider: arguments.choice(CommandTable.importProvider, as: ProviderKind.self), url: arguments.options["url"],
            apiKey: arguments.options["anon-key"] ?? arguments.options["api-key"], tokenEndpoint: arguments.options["token-endpoint"],
            clientID: arguments.options["client-id"])
        try vault.importSession(service: arguments.positionals[0], account: arguments.positionals[1], json: json, defaults: defaults)
    }

    /// `login oauth2|supabase|firebase`, `signup supabase|firebase`: the password comes from a
    /// prompt or stdin, a client secret from a file, never from argv. Email and password are
    /// checked before any request.
    func signIn(_ arguments: ParsedArguments, signingUp: Bool) throws {
        try arguments.expect(1...1, "PROVIDER (oauth2, supabase or firebase)")
        let command = signingUp ? "signup" : "login"
        let (service, account) = (arguments.options["service"], arguments.options["account"])
        let kind = try ProviderKind(name: arguments.positionals[0])
        if kind == .oauth2 {
            if signingUp { throw ParsedArguments.UsageError(message: "signup supports: supabase, firebase") }
            if arguments.flags.contains("device") { return try deviceSignIn(arguments) }
        }
        let user = arguments.options[kind == .oauth2 ? "username" : "email"]
        guard let provider = try Self.providerSettings(kind, arguments), let who = user, kind == .supabase || service != nil else {
            let needs = switch kind {
            case .supabase: "\(command) supabase needs --url URL --anon-key KEY --email EMAIL"
            case .firebase: "\(command) firebase needs --api-key KEY --email EMAIL --service NAME (and --url for an emulator)"
            case .oauth2: "login oauth2 needs --token-endpoint URL --username NAME --service NAME"
            }
            throw ParsedArguments.UsageError(message: needs)
        }
        if kind != .oauth2 { try Self.checkEmail(who) }
        let minimum = arguments.count(CommandTable.minPasswordLength) ?? 6
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
        let result = try ProgressIndicator.while(signingUp ? "signing up" : "signing in") {
            signingUp
                ? try vault.signUp(provider, user: who, password: password, service: service, account: account)
                : try vault.signIn(provider, user: who, password: password, service: service, account: account)
        }
        if let message = result.message { Output.error(message) }
        if let item = result.session {
            Output.error("\(signingUp ? "signed up and signed in" : "signed in"): session stored as service '\(item.service)' account '\(item.account)'; 'vaultctl token \(item.service)' prints a valid access token")
        }
    }

    /// RFC 8628: show the code, then poll until it is approved on another device.
    func deviceSignIn(_ arguments: ParsedArguments) throws {
        guard let deviceEndpoint = arguments.options["device-endpoint"], let tokenEndpoint = arguments.options["token-endpoint"],
              let service = arguments.options["service"] else {
            throw ParsedArguments.UsageError(message: "login oauth2 --device needs --device-endpoint URL --token-endpoint URL --service NAME (and usually --client-id)")
        }
        let client = try Self.oauth2Settings(arguments, tokenEndpoint: tokenEndpoint)
        let codes = try vault.startDeviceSignIn(
            deviceEndpoint: deviceEndpoint, clientID: client.clientID, clientSecret: client.clientSecret, scope: client.scope)
        Output.error("To sign in, open \(codes.verificationURI) and enter the code: \(codes.userCode)")
        if let complete = codes.verificationURIComplete { Output.error("(or open \(complete))") }
        // vaultd checks the server's numbers; the wait is bounded here as well (RFC 8628 §3.5).
        var interval = min(max(codes.interval, 1), 300)
        let deadline = Clock.monotonicSeconds() + min(codes.expiresIn, 86_400)
        let item: ItemMetadata = try ProgressIndicator.while("waiting for approval") {
            while Clock.monotonicSeconds() < deadline {
                usleep(UInt32(interval * 1_000_000))
                switch try vault.pollDeviceSignIn(service: service, account: arguments.options["account"], client: client, deviceCode: codes.deviceCode) {
                case .signedIn(let item): return item
                case .slowDown: interval = min(interval + 5, 300)
                case .pending: break
                }
            }
            throw VaultError.signInRequired("the code expired before it was approved: run the login again")
        }
        Output.error("signed in: session stored as service '\(item.service)' account '\(item.account)'; 'vaultctl token \(item.service)' prints a valid access token")
    }

    func resetPassword(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "PROVIDER (supabase or firebase)")
        guard let email = arguments.options["email"] else { throw ParsedArguments.UsageError(message: "reset-password needs --email EMAIL") }
        let kind = try ProviderKind(name: arguments.positionals[0])
        guard kind != .oauth2 else { throw ParsedArguments.UsageError(message: "reset-password supports: supabase, firebase") }
        guard let provider = try Self.providerSettings(kind, arguments) else {
            throw ParsedArguments.UsageError(message: kind == .supabase
                ? "reset-password supabase needs --url URL --anon-key KEY --email EMAIL"
                : "reset-password firebase needs --api-key KEY --email EMAIL (and --url for an emulator)")
        }
        try Self.checkEmail(email)
        Output.error(try ProgressIndicator.while("requesting a reset email") { try vault.resetPassword(provider, email: email) })
    }

    func logout(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...2, "SERVICE [ACCOUNT]")
        let (service, account) = (arguments.positionals[0], arguments.positionals.count > 1 ? arguments.positionals[1] : nil)
        let local = arguments.flags.contains("local")
        Output.error(try ProgressIndicator.while(local ? "forgetting the session" : "signing out") {
            try vault.logout(service: service, account: account, local: local)
        })
    }

    /// A provider's settings from the options: `--url` and `--anon-key` for Supabase, `--api-key`
    /// (and an emulator's `--url`) for Firebase, `--token-endpoint` and the client options for
    /// OAuth 2.0; nil when one it needs is missing.
    static func providerSettings(_ kind: ProviderKind, _ arguments: ParsedArguments) throws -> ProviderSettings? {
        let options = arguments.options
        switch kind {
        case .supabase:
            guard let url = options["url"], let key = options["anon-key"] else { return nil }
            return .supabase(SupabaseSettings(projectURL: url, apiKey: key))
        case .firebase:
            guard let key = options["api-key"] else { return nil }
            return .firebase(FirebaseSettings(apiKey: key, emulatorURL: options["url"]))
        case .oauth2:
            guard let endpoint = options["token-endpoint"] else { return nil }
            return .oauth2(try oauth2Settings(arguments, tokenEndpoint: endpoint))
        }
    }

    /// An OAuth 2.0 client from the options: `--client-id`, `--client-secret-file`, `--scope`,
    /// `--revocation-endpoint`.
    static func oauth2Settings(_ arguments: ParsedArguments, tokenEndpoint: String) throws -> OAuth2Settings {
        OAuth2Settings(
            tokenEndpoint: tokenEndpoint, clientID: arguments.options["client-id"], clientSecret: try clientSecret(arguments),
            scope: arguments.options["scope"], revocationEndpoint: arguments.options["revocation-endpoint"])
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
