#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore

/// get, set, add, delete, list.
extension Commands {
    func get(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        let item = try vault.get(service: arguments.positionals[0], account: arguments.positionals[1])
        if arguments.flags.contains("json") {
            Output.json(item)
            return
        }
        Output.write(item.secret)
        // A newline only for people: scripts get the bytes exactly.
        if Output.stdoutIsTerminal { Output.write([10]) }
    }

    func write(replacing: Bool, _ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        let (service, account) = (arguments.positionals[0], arguments.positionals[1])
        // Check the names before asking for a secret nobody will store.
        _ = try ItemKey(service: service, account: account)
        let secret: SecretBytes
        if SecretInput.stdinIsTerminal {
            secret = try SecretInput.prompt("Secret for \(service) (\(account)): ")
        } else {
            secret = try SecretInput.readStandardInput(limit: ItemLimits.maxSecretBytes, raw: arguments.flags.contains("raw"))
            // An empty stdin is nearly always a mistake (a variable that was unset, a file that was
            // not there, </dev/null): it would wipe the stored secret. Storing one takes a flag.
            if secret.isEmpty && !arguments.flags.contains("allow-empty") {
                let command = replacing ? "set" : "add"
                throw UsageError(message: "stdin was empty, so there is no secret to store (nothing was changed); to store an empty secret on purpose, run 'vaultctl \(command) ... --allow-empty'", command: command)
            }
        }
        let (label, comment) = (arguments.options["label"], arguments.options["comment"])
        if replacing {
            try vault.set(service: service, account: account, secret: secret, label: label, comment: comment)
        } else {
            try vault.add(service: service, account: account, secret: secret, label: label, comment: comment)
        }
    }

    func delete(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        try vault.delete(service: arguments.positionals[0], account: arguments.positionals[1])
    }

    func list(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...1, "[SERVICE]")
        let items = try vault.list(service: arguments.positionals.first)
        if arguments.flags.contains("json") {
            Output.json(items)
            return
        }
        Output.table(
            header: ["SERVICE", "ACCOUNT", "LABEL", "KIND", "MODIFIED", "SESSION"],
            rows: items.map { [$0.service, $0.account, $0.label, $0.kind.rawValue, Output.time($0.modified), $0.session.map(Self.summary) ?? ""] })
    }
}
