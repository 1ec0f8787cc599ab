import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Attack 2 of issue 30: a program that may not read an item connects, forks, and execs an
/// allowed program; its child sends `get` on the inherited connection
/// (Tests/Fixtures/fork_sender.c), all as an ordinary uid (`UnprivilegedUser`). vaultd answers
/// the request's sender, the child, and refuses it.
@Suite struct SenderAttackTests {
    @Test func aForkedChildIsNotTakenForTheAllowedProgramItsParentBecame() throws {
        let vault = VaultHarness(unprivileged: true)
        try vault.ctl("set", "svc", "item", input: "for-the-allowed-one")
        let attacker = vault.root + "/fork_sender"
        let built = try vault.run(["/usr/bin/gcc", "-O1", "-o", attacker, vault.fixture("fork_sender.c")])
        try #require(built.status == 0, "gcc could not build fork_sender: \(built.stderr)")
        // The allowed program: a copy of sleep, which the parent becomes while the child asks.
        let allowed = vault.root + "/allowed-sleep"
        try ExecutableFile.copy("/usr/bin/sleep", to: allowed, mode: 0o755)
        #expect(try vault.ctl("allow", "svc", "item", allowed).status == 0)
        let request = #"{"id":1,"op":"get","service":"svc","account":"item"}"#
        let answer = try vault.run([attacker, vault.socketPath, request, allowed, "2"])
        #expect(answer.text.contains(#""code":"denied""#) && !answer.text.contains("for-the-allowed-one"), "\(answer.text)")
        // On the record as the child that sent it, not as the allowed program.
        let records = try vault.ctl("audit", "--json").text.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["account"] as? String == "item" && $0["op"] as? String == "get" }
        #expect(records.count == 1 && records.first?["exe"] as? String == attacker && records.first?["result"] as? String == "denied", "\(records)")
    }
}
