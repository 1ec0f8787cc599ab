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
        if arguments.flags.contains("confirm") {
            try vault.write(replacing: replacing, service: service, account: account, secret: secret, label: label, comment: comment, confirm: true)
        } else if replacing {
            try vault.set(service: service, account: account, secret: secret, label: label, comment: comment)
        } else {
            try vault.add(service: service, account: account, secret: secret, label: label, comment: comment)
        }
    }

    func delete(_ arguments: ParsedArguments) throws {
        if arguments.positionals.count == 1, arguments.positionals[0].hasPrefix(RemoteTarget.scheme) {
            try deleteRemote(arguments.positionals[0])
            return
        }
        try arguments.expect(2...2, "SERVICE ACCOUNT")
        try vault.delete(service: arguments.positionals[0], account: arguments.positionals[1])
    }

    func list(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...1, "[SERVICE]")
        if let first = arguments.positionals.first, first.hasPrefix(RemoteTarget.scheme) {
            try listRemote(first, json: arguments.flags.contains("json"))
            return
        }
        let listing = try vault.listing(service: arguments.positionals.first)
        if arguments.flags.contains("json") {
            // One array: the items, then the unaddressable ones (kind "unaddressable", a reason).
            Output.json(listing.items.map(ListEntry.item) + listing.unaddressable.map(ListEntry.unaddressable))
            return
        }
        // Nothing is invisible: items vault cannot address are rows too, marked, with the reason.
        Output.table(
            header: ["SERVICE", "ACCOUNT", "LABEL", "KIND", "MODIFIED", "NOTE"],
            rows: [AnySequence(listing.items.lazy.map { item in
                var note = item.session.map(Self.summary) ?? ""
                if item.duplicates > 0 {
                    note += (note.isEmpty ? "" : "; ") + "\(item.duplicates + 1) items under this name (another tool wrote its own): the newest is read, all are written"
                }
                return [item.service, item.account, item.label, item.kind.rawValue, Output.time(item.modified), note]
            }), AnySequence(listing.unaddressable.map { item in
                [Self.shortened(item.service), item.account.map(Self.shortened) ?? "(none)", Self.shortened(item.label), "unaddressable",
                 Timestamp.rfc3339(milliseconds: item.modified), item.reason]
            })].joined())
        if !listing.unaddressable.isEmpty && Output.stdoutIsTerminal {
            Output.error("\(listing.unaddressable.count) item(s) cannot be read or changed with vaultctl: see their NOTE")
        }
    }

    /// A name as stored may be over the limit, as long as 100 KiB: the start of it is enough to
    /// recognise it in a listing.
    static func shortened(_ name: String) -> String {
        name.count <= 60 ? name : String(name.prefix(57)) + "..."
    }
}
