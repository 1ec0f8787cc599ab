#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore

/// status, lock, unlock, passwd, migrate, doctor.
extension Commands {
    func status(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        let status = try vault.status()
        if arguments.flags.contains("json") {
            Output.json(status)
            return
        }
        Output.line("vaultd \(status.version) (pid \(status.pid)) on \(status.socket)")
        Output.line("store:  \(status.store.rawValue), \(status.location)")
        Output.line("why:    \(status.storeReason)")
        if status.isLocked {
            Output.line("state:  locked" + (status.lockReason.map { " (\($0))" } ?? ""))
            Output.line(status.exists ? "        run 'vaultctl unlock' to unlock" : "        no vault yet: 'vaultctl unlock' creates one")
        } else {
            var extra: [String] = []
            if status.unaddressableCount > 0 { extra.append("\(status.unaddressableCount) that vault cannot address") }
            if status.duplicateCount > 0 { extra.append("\(status.duplicateCount) duplicate(s) another tool wrote") }
            Output.line("state:  unlocked, \(status.itemCount.map(String.init) ?? "?") item(s)"
                        + (extra.isEmpty ? "" : " (\(extra.joined(separator: ", ")): see 'vaultctl list')"))
        }
        if let serving = status.secretServiceProvider {
            Output.line("secret service: " + (serving ? "vaultd serves it (org.freedesktop.secrets)" : "not served by vaultd")
                        + (status.secretServiceProviderReason.map { "; \($0)" } ?? ""))
        }
        for session in status.sessions {
            Output.line("session: \(session.service) (\(session.account)): \(session.session.map(Self.summary) ?? "unreadable")")
        }
        for remote in status.remotes { Output.line(Self.remoteSummary(remote)) }
        for space in status.spaces { Output.line(Self.spaceSummary(space)) }
    }

    /// "supabase, alice@example.com, expires 2026-11-30T12:00:00Z" or "..., NEEDS SIGN-IN".
    static func summary(_ session: SessionInfo) -> String {
        var parts = [session.provider.rawValue]
        if let user = session.user { parts.append(user) }
        if session.needsSignIn {
            parts.append("NEEDS SIGN-IN")
        } else if let expires = session.expiresAt {
            parts.append("expires " + Output.time(expires))
        }
        return parts.joined(separator: ", ")
    }

    func lock(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        try vault.lock()
    }

    func unlock(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments")
        let status = try vault.status()
        if !status.isLocked {
            Output.error("the vault is already unlocked")
            return
        }
        guard status.store == .file else {
            // The Secret Service unlocks its own collection (it may show its own prompt).
            try vault.unlock(passphrase: nil)
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
        try vault.unlock(passphrase: passphrase)
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
        try vault.changePassphrase(current: current, new: new, rekey: !arguments.flags.contains("rewrap-only"))
    }

    func migrate(_ arguments: ParsedArguments) throws {
        try arguments.expect(0...0, "no arguments (use --to file|secret-service)")
        guard let target = arguments.choice(CommandTable.migrateTarget, as: StoreKind.self) else {
            throw ParsedArguments.UsageError(message: "--to must be file or secret-service")
        }
        let report: MigrationReport
        switch Result(catching: { () throws(VaultClientError) in try vault.migrate(to: target) }) {
        case .success(let done):
            report = done
        case .failure(let error) where error.code == .passphraseRequired || error.code == .newPassphraseRequired:
            // The file store needs its passphrase (or a new one): ask, then try again.
            let passphrase: SecretBytes
            if SecretInput.stdinIsTerminal {
                let creating = error.code == .newPassphraseRequired
                passphrase = try SecretInput.prompt(creating ? "Choose a passphrase for the new file store: " : "File store passphrase: ", confirm: creating)
            } else {
                guard let line = try SecretInput.readLine() else { throw error }
                passphrase = line
            }
            report = try vault.migrate(to: target, passphrase: passphrase)
        case .failure(let error):
            throw error
        }
        if arguments.flags.contains("json") {
            Output.json(report)
            return
        }
        Output.line("moved from the \(report.from) store to the \(report.to) store: \(report.copied) copied, \(report.alreadyPresent) already there, \(report.removed) originals removed")
        for conflict in report.conflicts {
            Output.error("kept both copies of service '\(conflict.service)' account '\(conflict.account)': the \(report.to) store already had a different secret")
        }
        for key in report.collapsed {
            Output.error("service '\(key.service)' account '\(key.account)' had several items in the \(report.from) store (written by different tools): the newest was moved, all were removed")
        }
        for item in report.leftInPlace {
            Output.error("left in the \(report.from) store: service '\(Self.shortened(item.service))'"
                         + (item.account.map { " account '\(Self.shortened($0))'" } ?? " (no account)") + ": \(item.reason)")
        }
        if let path = report.recordedIn {
            Output.line("vaultd now serves from the \(report.to) store, and keeps it after a restart ('backend = \(report.to)' in \(path))")
        } else {
            Output.line("vaultd now serves from the \(report.to) store; it could not record that ('vaultctl status' says why): set VAULT_BACKEND=\(report.to) to keep it after a restart")
        }
        // Not done in silence: anything left behind is an exit status scripts see (6).
        let left = report.conflicts.count + report.leftInPlace.count
        if left > 0 {
            throw VaultClientError(code: .duplicate, message: "\(left) item(s) were left in the \(report.from) store ("
                                   + "\(report.conflicts.count) conflict(s), \(report.leftInPlace.count) that vault cannot address); the rest moved")
        }
    }

    /// Exit status: 0 when the store in use works.
    func doctor(_ arguments: ParsedArguments) throws -> Bool {
        try arguments.expect(0...0, "no arguments")
        let status = try? vault.status()
        let report = try vault.doctor()
        if arguments.flags.contains("json") {
            Output.json(report)
            return report.selectedWorks
        }
        if let status { Output.line("vaultd \(status.version) (pid \(status.pid)) answers on \(status.socket)") }
        Output.line("store in use: \(report.selected.rawValue) (\(report.selectedReason))")
        for store in [StoreKind.secretService, .file] {
            Output.line("")
            Output.line(store.displayName)
            for check in report.checks where check.store == store {
                Output.line("  \(check.ok ? "ok  " : "FAIL") \(check.name): \(check.detail)")
            }
        }
        if !report.remotes.isEmpty {
            Output.line("")
            Output.line("Remote engines")
            for remote in report.remotes { Output.line("  " + Self.remoteSummary(remote)) }
        }
        if !report.spaces.isEmpty {
            Output.line("")
            Output.line("Spaces")
            for space in report.spaces {
                Output.line("  " + Self.spaceSummary(space))
                for conflict in space.conflicts { Output.line("    conflict: \(conflict.service) (\(conflict.account)), the other edit kept as '\(conflict.copy)': vaultctl space resolve \(space.name) ... --keep item|copy") }
                for problem in space.problems { Output.line("    refused from the engine: \(problem)") }
            }
        }
        Output.line("")
        Output.line(report.selectedWorks ? "the store in use (\(report.selected.rawValue)) works" : "the store in use (\(report.selected.rawValue)) does NOT work: see FAIL above")
        return report.selectedWorks
    }
}
