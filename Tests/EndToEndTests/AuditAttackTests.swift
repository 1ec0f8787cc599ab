import Foundation
import Testing
import VaultCore
import VaultSystem

/// Attack 7 of issue 30 with the built binaries: a program of the user (an ordinary uid,
/// `UnprivilegedUser`) rolls `audit.log` back, deletes a line or replays one; `vaultctl audit` says what and exits non-zero, with vaultd
/// running and after a restart (the head the vault kept).
@Suite struct AuditAttackTests {
    func audit(_ vault: VaultHarness) throws -> VaultHarness.Result { try vault.ctl("audit") }

    @Test func rollingBackCuttingOrReplayingTheLogIsReported() throws {
        let vault = VaultHarness(unprivileged: true)
        try vault.ctl("set", "svc", "acct", input: "audited")
        for _ in 0..<3 { #expect(try vault.ctl("get", "svc", "acct").status == 0) }
        let log = FileSystem.parentDirectory(of: vault.vaultFile) + "/audit.log"
        let early = try Data(contentsOf: URL(fileURLWithPath: log))
        for _ in 0..<3 { #expect(try vault.ctl("get", "svc", "acct").status == 0) }
        let clean = try audit(vault)
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
        let full = try Data(contentsOf: URL(fileURLWithPath: log))

        // Rolled back to the older copy while vaultd runs.
        try vault.writeAsUser([UInt8](early), to: log)
        var found = try audit(vault)
        #expect(found.status == 1 && found.stderr.contains("missing after") && found.stderr.contains("does not hold together"), "\(found.stderr)")

        // A line deleted, then one replayed.
        var lines = full.split(separator: 0x0A)
        lines.remove(at: 2)
        try vault.writeAsUser([UInt8](Data(lines.joined(separator: [0x0A]) + [0x0A])), to: log)
        found = try audit(vault)
        #expect(found.status == 1 && found.stderr.contains("missing between"), "\(found.stderr)")
        try vault.writeAsUser([UInt8](full + full.split(separator: 0x0A)[1] + [0x0A]), to: log)
        found = try audit(vault)
        #expect(found.status == 1 && found.stderr.contains("twice"), "\(found.stderr)")

        // Put back whole, then rolled back while vaultd is stopped: the vault kept the head.
        try vault.writeAsUser([UInt8](full), to: log)
        #expect(try audit(vault).status == 0)
        vault.stopDaemons()
        try vault.writeAsUser([UInt8](early), to: log)
        found = try audit(vault)
        #expect(found.status == 1 && found.stderr.contains("missing after"), "\(found.stderr)")
    }
}
