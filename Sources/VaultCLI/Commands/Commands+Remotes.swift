import VaultClient
import VaultCore
import VaultSystem

/// remote add, list, remove, login; write, history; and the kv:// forms of delete and list.
extension Commands {
    func remoteAdd(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "NAME")
        let name = arguments.positionals[0]
        if let problem = RemoteName.problem(with: name) { throw UsageError(message: problem, command: "remote add") }
        guard let url = arguments.options["url"] else { throw UsageError(message: "remote add needs --url URL", command: "remote add") }
        guard let auth = arguments.options["auth"] else {
            throw UsageError(message: "remote add needs --auth token, approle, userpass or jwt", command: "remote add")
        }
        let addition = RemoteAddition(
            name: name, url: url, auth: auth, mount: arguments.options["mount"], prefix: arguments.options["prefix"],
            caFile: try arguments.options["ca-file"].map { try Self.absolute($0) }, maxAge: arguments.duration(CommandTable.remoteMaxAge),
            roleID: arguments.options["role-id"], username: arguments.options["username"], role: arguments.options["role"],
            jwtFile: try arguments.options["jwt-file"].map { try Self.absolute($0) })
        let secret = auth == "jwt" ? nil : try Self.remoteCredential(auth, for: name, forced: true)
        let remote = try vault.addRemote(addition, secret: secret)
        Output.line("added remote '\(remote.name)' (\(remote.url), mount '\(remote.mount)', \(remote.auth)); read its secrets as kv://\(remote.name)/PATH")
    }

    func remoteList(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        let remotes = try vault.remotes()
        if arguments.flags.contains("json") {
            Output.json(remotes)
            return
        }
        Output.table(header: ["NAME", "URL", "MOUNT", "AUTH", "STATE", "CACHED"], rows: remotes.map { remote in
            [remote.name, remote.url, remote.prefix.isEmpty ? remote.mount : "\(remote.mount)/\(remote.prefix)", remote.auth,
             Self.remoteState(remote), Self.cacheSummary(remote)]
        })
    }

    func remoteRemove(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "NAME")
        Output.line(try vault.removeRemote(arguments.positionals[0]))
    }

    func remoteLogin(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "NAME")
        let name = arguments.positionals[0]
        let method = try vault.remotes().first { $0.name == name }.map { $0.auth.split(separator: " ").first.map(String.init) ?? "" }
        var secret: SecretBytes?
        if let method, method != "jwt", arguments.flags.contains("new") || !SecretInput.stdinIsTerminal {
            secret = try Self.remoteCredential(method, for: name, forced: arguments.flags.contains("new"))
        }
        let remote = try vault.loginRemote(name, secret: secret)
        Output.line("logged in to remote '\(remote.name)'\(remote.tokenTTL.map { "; the token is good for \(DurationText.spoken($0))" } ?? "")")
    }

    func writeRemote(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "REFERENCE")
        let (reference, target) = try Self.remoteTarget(arguments.positionals[0], command: "write")
        guard let field = reference.field else {
            throw UsageError(message: "write sets one field: kv://REMOTE/PATH?field=FIELD", command: "write")
        }
        guard target.version == nil else { throw UsageError(message: "write makes a new version; leave out version=", command: "write") }
        let value: SecretBytes
        if SecretInput.stdinIsTerminal {
            value = try SecretInput.prompt("Value for \(field) of kv://\(target.remote)/\(target.path): ")
        } else {
            value = try SecretInput.readStandardInput(limit: ItemLimits.maxSecretBytes, raw: arguments.flags.contains("raw"))
        }
        let version = try vault.writeRemote(remote: target.remote, path: target.path, field: field, value: value, force: arguments.flags.contains("force"))
        if Output.stdoutIsTerminal { Output.line("wrote version \(version) of kv://\(target.remote)/\(target.path)") }
    }

    func history(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "REFERENCE")
        let (_, target) = try Self.remoteTarget(arguments.positionals[0], command: "history")
        let versions = try vault.remoteHistory(remote: target.remote, path: target.path)
        if arguments.flags.contains("json") {
            Output.json(versions)
            return
        }
        Output.table(header: ["VERSION", "CREATED", "STATE"], rows: versions.map { version in
            let state = version.destroyed ? "destroyed" : version.deleted.map { "deleted \($0)" } ?? (version.current ? "current" : "")
            return [String(version.version), version.created, state]
        })
    }

    /// `delete kv://REMOTE/PATH`: KV v2's soft delete of the latest version.
    func deleteRemote(_ text: String) throws {
        let (_, target) = try Self.remoteTarget(text, command: "delete")
        try vault.deleteRemote(remote: target.remote, path: target.path)
    }

    /// `list kv://REMOTE/[FOLDER/]`: the names under a remote folder, folders ending in `/`.
    func listRemote(_ text: String, json: Bool) throws {
        let rest = text.dropFirst(RemoteTarget.scheme.count)
        let remote = String(rest.prefix { $0 != "/" })
        let folder = String(rest.dropFirst(remote.count + 1))
        if let problem = RemoteName.problem(with: remote) { throw UsageError(message: problem, command: "list") }
        let keys = try vault.listRemote(remote: remote, path: folder)
        if json {
            Output.json(keys)
        } else {
            for key in keys { Output.line(key) }
        }
    }

    static func remoteTarget(_ text: String, command: String) throws -> (SecretReference, RemoteTarget) {
        guard text.hasPrefix(RemoteTarget.scheme) else { throw UsageError(message: "\(command) takes a remote secret: \(RemoteTarget.form)", command: command) }
        let reference = try SecretReference(parsing: text)
        guard let target = reference.remote else { throw UsageError(message: "\(command) takes \(RemoteTarget.form)", command: command) }
        return (reference, target)
    }

    /// The token, secret id or password of `method`, from stdin or a no-echo prompt.
    static func remoteCredential(_ method: String, for name: String, forced: Bool) throws -> SecretBytes {
        let what = switch method {
        case "approle": "AppRole secret id"
        case "userpass": "password"
        default: "token"
        }
        let secret = SecretInput.stdinIsTerminal
            ? try SecretInput.prompt("The \(what) for remote '\(name)': ")
            : try SecretInput.readStandardInput(limit: 16 * 1024, raw: false)
        guard !secret.isEmpty else { throw VaultError.invalidInput("no \(what) was given on stdin; nothing was changed") }
        return secret
    }

    static func absolute(_ path: String) throws -> String {
        if path.hasPrefix("/") { return path }
        guard let directory = ProcessEnvironment.workingDirectory else { throw VaultError.invalidInput("cannot tell the current directory to make \(path) absolute") }
        return directory + "/" + path
    }

    static func remoteState(_ remote: RemoteInfo) -> String {
        var parts: [String] = []
        switch remote.reachable {
        case true?: parts.append("reachable")
        case false?: parts.append("unreachable")
        case nil: parts.append("not asked yet")
        }
        if !remote.loggedIn { parts.append("logged out") } else if let ttl = remote.tokenTTL { parts.append("token \(DurationText.spoken(ttl))") }
        return parts.joined(separator: ", ")
    }

    static func cacheSummary(_ remote: RemoteInfo) -> String {
        guard remote.cached > 0 else { return "0" }
        var text = "\(remote.cached)"
        if remote.stale > 0 { text += " (\(remote.stale) stale, oldest \(DurationText.spoken(remote.oldest ?? 0)))" }
        return text
    }

    /// One line per remote for status and doctor.
    static func remoteSummary(_ remote: RemoteInfo) -> String {
        var line = "remote \(remote.name): \(remote.url), \(remote.auth), \(remoteState(remote)), \(cacheSummary(remote)) cached"
        if let refreshed = remote.lastRefresh { line += ", refreshed \(refreshed)" }
        if let problem = remote.problem { line += "\n  \(problem)" }
        return line
    }
}
