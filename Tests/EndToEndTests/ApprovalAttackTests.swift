import Foundation
import Testing
import VaultCore

/// Attack 1 of issue 30, as a program of the user would make it: register as an approver, ask
/// for a `--confirm` item on a second connection, answer it on a third. Each step is refused:
/// approving needs the approval secret the person typed, and only the approver a request was
/// handed to can answer it. The attacker, the person's approver and vaultd all run as one
/// ordinary uid (`UnprivilegedUser`).
@Suite struct ApprovalAttackTests {
    let rules = AccessRulesTests()

    /// The error codes vaultd answered to `requests`, sent on one connection by a Python program.
    func attack(_ vault: VaultHarness, _ requests: [String]) throws -> [String?] {
        let result = try vault.run(["/usr/bin/python3", vault.fixture("raw_client.py"), vault.socketPath], input: Array(requests.map { $0 + "\n" }.joined().utf8))
        return result.text.split(separator: "\n").map { line in
            let answer = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return answer?.errorCode ?? (answer?.ok == true ? "ok" : "unreadable")
        }
    }

    @Test func aProgramCannotApproveItsOwnRequest() throws {
        let vault = VaultHarness(unprivileged: true)
        _ = try vault.startDaemon(["--approval-timeout", "3s"])
        #expect(try vault.ctl(["set", "svc", "guarded", "--confirm"], input: Array("the-guarded-secret".utf8)).status == 0)
        // No approval secret set yet: nobody registers, and setting one needs the vault's passphrase.
        let first = try attack(vault, [
            #"{"id":1,"op":"approve_next","wait":0}"#,
            #"{"id":2,"op":"approve_next","wait":0,"secret":"a guess at it"}"#,
            #"{"id":3,"op":"set_approval_secret","new_secret":"the attacker's own"}"#,
            #"{"id":4,"op":"set_approval_secret","new_secret":"the attacker's own","secret":"not the passphrase"}"#,
        ])
        #expect(first == ["denied", "not_found", "passphrase_required", "denied"], "\(first)")

        // The person's approver, which chooses the secret (with the vault's passphrase) at its first run.
        let transcript = vault.root + "/approver.txt"
        let (driver, input) = try rules.approver(vault, transcript: transcript, answers: [])
        defer {
            try? input.fileHandleForWriting.close()
            driver.waitUntilExit()
        }
        // The attacker asks, and answers "always" on another connection for every id it can think of.
        let reader = Process()
        let command = vault.asUser + [vault.vaultctlPath, "get", "svc", "guarded"]
        reader.executableURL = URL(fileURLWithPath: command[0])
        reader.arguments = Array(command.dropFirst())
        reader.environment = vault.environment
        let output = Pipe(), errors = Pipe()
        (reader.standardOutput, reader.standardError) = (output, errors)
        try reader.run()
        let answers = try attack(vault, [#"{"id":5,"op":"approve_next","wait":0,"secret":"a guess at it"}"#]
            + (1...64).map { #"{"id":\#($0),"op":"approve_answer","request":\#($0),"answer":"always"}"# })
        #expect(answers == Array(repeating: "denied", count: 65), "\(answers)")
        reader.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(reader.terminationStatus == 7 && stderr.contains("no answer within 3 s"), "\(stderr)")
        #expect(output.fileHandleForReading.readDataToEndOfFile().isEmpty)
        // No rule was written for it.
        let written = try JSONSerialization.jsonObject(with: Data(try vault.ctl("rules", "svc", "guarded", "--json").stdout)) as? [String: Any]
        #expect(written?["confirm"] as? Bool == true && (written?["allow"] as? [Any])?.isEmpty == true, "\(String(describing: written))")

        // The person saw who asked, and who started it (this test process).
        let shown = try String(contentsOfFile: transcript, encoding: .utf8)
        #expect(shown.contains("get svc (guarded)") && shown.contains("from   pid \(getpid())"), "\(shown)")
        // Every guess is on the record.
        let records = try rules.records(vault)
        #expect(records.filter { $0["op"] as? String == "approve_next" && $0["result"] as? String == "denied" }.count >= 1)
        #expect(records.contains { $0["op"] as? String == "approve_next" && $0["result"] as? String == "ok" })
    }
}
