#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore
import VaultSystem

/// space create, join, admit, add, remove, status, remove-device, sync, resolve.
extension Commands {
    func spaceCreate(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "NAME")
        guard let remote = arguments.options["remote"] else { throw UsageError(message: "space create needs --remote REMOTE", command: "space create") }
        let space = try vault.createSpace(arguments.positionals[0], remote: remote, path: arguments.options["path"], deviceName: arguments.options["device"])
        Output.line("created space '\(space.name)' in remote '\(space.remote)' at \(space.path); share an item with 'vaultctl space add \(space.name) SERVICE ACCOUNT', add a device with 'vaultctl space join \(space.name) --remote REMOTE' on it")
    }

    /// Prints the fingerprint line, then waits (asking vaultd each second) until admitted.
    func spaceJoin(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "NAME")
        let name = arguments.positionals[0]
        guard let remote = arguments.options["remote"] else { throw UsageError(message: "space join needs --remote REMOTE", command: "space join") }
        let timeout = arguments.duration(CommandTable.spaceTimeout) ?? 600
        var space = try vault.joinSpace(name, remote: remote, path: arguments.options["path"], deviceName: arguments.options["device"])
        Output.line("fingerprint: " + space.fingerprint.joined(separator: " "))
        if Terminal.isTerminal(2) {
            Output.error("compare these words on a member of '\(name)', then run there: vaultctl space admit \(name) \(space.fingerprint.joined(separator: " "))")
        }
        let deadline = Clock.monotonicSeconds() + timeout
        while !space.admitted {
            guard Clock.monotonicSeconds() < deadline else {
                throw VaultClientError(code: .unavailable, message: "not admitted to space '\(name)' within \(DurationText.spoken(timeout)); run 'vaultctl space join \(name) --remote \(remote)' again to keep waiting with the same fingerprint")
            }
            usleep(1_000_000)
            space = try vault.spaceStatus(name)
        }
        Output.line("admitted to space '\(name)': \(space.items) item\(space.items == 1 ? "" : "s") shared so far; they arrive at the next round")
        if space.remote != remote {
            Output.line("it syncs with the engine credential handed over, kept as remote '\(space.remote)'")
        }
        for problem in space.problems { Output.error(problem) }
    }

    func spaceAdmit(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count >= 2 else { throw UsageError(message: "missing NAME WORD ...", command: "space admit") }
        let space = try vault.admitToSpace(arguments.positionals[0], words: Array(arguments.positionals.dropFirst()))
        Output.line(space.message ?? "admitted")
    }

    func spaceAdd(_ arguments: ParsedArguments) throws {
        try arguments.expect(3...3, "NAME SERVICE ACCOUNT")
        let (name, service, account) = (arguments.positionals[0], arguments.positionals[1], arguments.positionals[2])
        _ = try vault.addToSpace(name, service: service, account: account)
        Output.line("\(service) (\(account)) is shared in space '\(name)'; it is pushed at the next round ('vaultctl space sync \(name)' for now)")
    }

    func spaceRemove(_ arguments: ParsedArguments) throws {
        try arguments.expect(3...3, "NAME SERVICE ACCOUNT")
        let (name, service, account) = (arguments.positionals[0], arguments.positionals[1], arguments.positionals[2])
        _ = try vault.removeFromSpace(name, service: service, account: account)
        Output.line("\(service) (\(account)) is no longer shared in space '\(name)': it stays here and goes from the other devices")
    }

    func spaceRemoveDevice(_ arguments: ParsedArguments) throws {
        try arguments.expect(2...2, "NAME DEVICE")
        Output.line(try vault.removeDeviceFromSpace(arguments.positionals[0], device: arguments.positionals[1]).message ?? "removed")
    }

    func spaceSync(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "NAME")
        let space = try vault.syncSpace(arguments.positionals[0])
        Output.line("space '\(space.name)': \(space.message ?? "synced")")
    }

    func spaceResolve(_ arguments: ParsedArguments) throws {
        try arguments.expect(3...3, "NAME SERVICE ACCOUNT")
        guard let keep = arguments.options["keep"] else { throw UsageError(message: "space resolve needs --keep item or --keep copy", command: "space resolve") }
        _ = try vault.resolveSpaceConflict(arguments.positionals[0], service: arguments.positionals[1], account: arguments.positionals[2], keep: keep)
        Output.line(keep == "copy" ? "the conflict copy's value is the item's now (pushed at the next round); the copy is deleted" : "the item keeps its value; the conflict copy is deleted")
    }

    func spaceStatus(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...1, "NAME")
        let space = try vault.spaceStatus(arguments.positionals[0])
        if arguments.flags.contains("json") { return Output.json(space) }
        Output.line("space '\(space.name)': remote '\(space.remote)', path \(space.path), key generation \(space.generation)")
        Output.line("this device: \(space.deviceName) (\(space.device)), " + (space.admitted ? "admitted" : "waiting to be admitted, fingerprint: \(space.fingerprint.joined(separator: " "))"))
        if !space.devices.isEmpty {
            Output.table(header: ["DEVICE", "ID", "STATE"], rows: space.devices.map { [$0.name + ($0.isCurrent ? " (this one)" : ""), $0.id, $0.state] })
        }
        var items = "items: \(space.items) shared, \(space.pending) waiting to be pushed"
        if space.heldBack > 0 { items += ", \(space.heldBack) held back (they have access rules, which hold on this device only)" }
        Output.line(items)
        Output.line("last pull: \(space.lastPull ?? "never"); last push: \(space.lastPush ?? "never")")
        for conflict in space.conflicts {
            Output.line("conflict: \(conflict.service) (\(conflict.account)): the other edit, from device \(conflict.device.prefix(8)) at \(conflict.at), is kept as '\(conflict.copy)'; settle it with 'vaultctl space resolve \(space.name) \(conflict.service.shellQuoted) \(conflict.account.shellQuoted) --keep item' (or --keep copy)")
        }
        for problem in space.problems { Output.line("refused from the engine: \(problem)") }
    }
}

extension Commands {
    /// "space home: remote team, admitted, 3 items, 1 waiting to be pushed, 1 conflict, last pull …".
    static func spaceSummary(_ space: SpaceInfo) -> String {
        var parts = ["remote '\(space.remote)'", space.admitted ? "admitted" : "waiting to be admitted", "\(space.items) item\(space.items == 1 ? "" : "s")"]
        if space.pending > 0 { parts.append("\(space.pending) waiting to be pushed") }
        if space.heldBack > 0 { parts.append("\(space.heldBack) held back by access rules") }
        if !space.conflicts.isEmpty { parts.append("\(space.conflicts.count) conflict\(space.conflicts.count == 1 ? "" : "s")") }
        if !space.problems.isEmpty { parts.append("\(space.problems.count) entr\(space.problems.count == 1 ? "y" : "ies") refused") }
        parts.append("last pull \(space.lastPull ?? "never")")
        return "space \(space.name): " + parts.joined(separator: ", ")
    }
}
