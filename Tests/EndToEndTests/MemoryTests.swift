import Foundation
import Testing
import VaultCore

/// Attack 6 of issue 10: after set, get, unlock and lock, vaultd's memory holds no copy of the
/// item's secret or of the passphrase (the file store keeps items sealed until `get`, and every
/// buffer on the way is wiped), checked by scanning the live process for a canary.
@Suite struct MemoryTests {
    @Test func noSecretOrPassphraseOutlivesItsRequest() throws {
        // No passphrase file: the passphrase reaches vaultd only through `vaultctl unlock`.
        let vault = VaultHarness(passphraseFile: false)
        let daemon = try vault.startDaemon()
        let pid = daemon.processIdentifier
        let passphrase = ProcessMemory.canary("pass", words: 40)
        let secret = ProcessMemory.canary("secret", words: 40)
        let passphraseBytes = Array(passphrase.utf8), secretBytes = Array(secret.utf8)
        // The scan itself finds a copy planted on purpose (it reads the right process).
        #expect(ProcessMemory.occurrences(of: Array("vault.sock".utf8), in: pid) > 0)

        let unlock = try vault.ctl(["unlock"], input: Array((passphrase + "\n").utf8))
        #expect(unlock.status == 0, "\(unlock.stderr)")
        #expect(ProcessMemory.copiesRemaining(of: passphraseBytes, in: pid) == 0, "copies of the passphrase after unlock")

        let set = try vault.ctl(["set", "memory", "canary"], input: secretBytes)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(ProcessMemory.copiesRemaining(of: secretBytes, in: pid) == 0, "copies of the secret after set")

        for round in 1...2 {
            let get = try vault.ctl(["get", "memory", "canary"])
            #expect(get.status == 0 && get.stdout == secretBytes, "get \(round) answered")
            #expect(ProcessMemory.copiesRemaining(of: secretBytes, in: pid) == 0, "copies of the secret after get \(round)")
        }
        let json = try vault.ctl(["get", "--json", "memory", "canary"])
        #expect(json.status == 0 && json.text.contains(#""secret":"\#(secret)""#))
        #expect(ProcessMemory.copiesRemaining(of: secretBytes, in: pid) == 0, "copies of the secret after get --json")

        #expect(try vault.ctl("lock").status == 0)
        #expect(ProcessMemory.copiesRemaining(of: secretBytes, in: pid) == 0, "copies of the secret after lock")
        #expect(ProcessMemory.copiesRemaining(of: passphraseBytes, in: pid) == 0, "copies of the passphrase after lock")
        #expect(daemon.isRunning)
    }
}
