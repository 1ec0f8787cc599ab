import Testing
@testable import VaultCLI
import VaultClient

/// What `vaultctl approve` shows and reads.
@Suite struct ApprovalPromptTests {
    @Test func aCallersPathsCannotFakeLinesOfThePrompt() {
        let request = ApprovalRequest(id: 3, op: "get", service: "svc", account: "acct", pid: 42, exe: "/tmp/x\nrequest 9: get bank (me)",
                                      script: nil, cwd: "/home/a\u{1b}[2J", unit: nil, expiresIn: 20)
        let shown = Commands.describe(request)
        #expect(shown.split(separator: "\n").count == 4, "title, by, in, unit: \(shown)")
        #expect(!shown.contains("\u{1b}"))
        #expect(shown.contains("pid 42") && shown.contains("svc (acct)") && shown.contains("(none)"))
    }

    @Test func answersAreReadStrictly() {
        #expect(Commands.decision("o") == .once && Commands.decision("once") == .once)
        #expect(Commands.decision("m 15") == .minutes(15) && Commands.decision("minutes 1") == .minutes(1))
        #expect(Commands.decision("a") == .always && Commands.decision("D") == .deny)
        for bad in ["", "m", "m 0", "m 1441", "m x", "o o", "yes please", "a 5"] { #expect(Commands.decision(bad) == nil, "\(bad)") }
    }
}
