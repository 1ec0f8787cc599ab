import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// How `vaultctl allow` and vaultd find the interpreter a script's rule pins: from its `#!`
/// line, from PATH when that line goes through env, and what either refuses with what to do.
@Suite(.serialized) struct ScriptInterpreterRulesTests {
    /// Tests/Fixtures/vault_get.py behind `shebang`, executable, at `name` in the harness's directory.
    func script(_ vault: VaultHarness, _ name: String, shebang: String) throws -> String {
        let path = vault.root + "/" + name
        let body = try String(contentsOfFile: PythonFixture.packageRoot + "/Tests/Fixtures/vault_get.py", encoding: .utf8)
        FileManager.default.createFile(atPath: path, contents: Data((shebang + "\n" + body).utf8), attributes: [.posixPermissions: 0o755])
        return path
    }

    /// `#!/usr/bin/env python3`: vaultctl looks python3 up in its PATH, the rule pins it, and the
    /// script run as a program reads the item; the same code by another path is denied, and so is
    /// the script when PATH gives it another python3.
    @Test func aScriptFindingItsInterpreterWithEnvIsPinnedToTheOnePATHGives() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "env-script", input: "for-the-env-script")
        let allowed = try script(vault, "tool", shebang: "#!/usr/bin/env python3")
        let other = try script(vault, "other", shebang: "#!/usr/bin/env python3")
        let allow = try vault.ctl(["allow", "svc", "env-script", allowed], environment: ["PATH": "/usr/bin:/bin"])
        #expect(allow.status == 0, "\(allow.stderr)")
        let rules = try vault.ctl("rules", "svc", "env-script")
        let pinned = try #require(rules.text.split(separator: "\n").first { $0.contains("run by ") })
        #expect(pinned.contains("/usr/bin/python3"), "\(rules.text)")
        let arguments = [vault.socketPath, "svc", "env-script"]
        let run = try vault.run([allowed] + arguments, environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.text == "for-the-env-script\n", "\(run.stderr)")
        #expect(try vault.run([other] + arguments, environment: ["PATH": "/usr/bin:/bin"]).text == "error denied\n")
        // Run where PATH gives another python3 (a copy in a directory of the user's): not the pinned one.
        try FileManager.default.createDirectory(atPath: vault.root + "/bin", withIntermediateDirectories: true)
        try ExecutableFile.copy("/usr/bin/python3", to: vault.root + "/bin/python3", mode: 0o755)
        #expect(try vault.run([allowed] + arguments, environment: ["PATH": vault.root + "/bin:/usr/bin:/bin"]).text == "error denied\n")
    }

    /// What vaultd refuses when a rule for a script is asked for over the socket, each with what
    /// to name instead; nothing is pinned by any of them.
    @Test func interpretersThatCannotBePinnedAreRefusedWithWhatToDo() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "acct", input: "x")
        let viaEnv = try script(vault, "via-env", shebang: "#!/usr/bin/env python3")
        let bare = try script(vault, "bare", shebang: "#!   ")
        let wrapper = vault.root + "/python3"
        FileManager.default.createFile(atPath: wrapper, contents: Data("#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n".utf8), attributes: [.posixPermissions: 0o755])
        let wrapped = try script(vault, "wrapped", shebang: "#!" + wrapper)
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        let cases: [(path: String, interpreter: String?, says: String)] = [
            (viaEnv, nil, "finds its interpreter with env"),
            (bare, nil, "names no interpreter"),
            (wrapped, nil, "is itself a script"),
            (viaEnv, wrapper, "is itself a script"),
            ("/bin/true", "/usr/bin/python3", "is a compiled program"),
            (viaEnv, "/bin/true", "is not an interpreter"),
            (viaEnv, "python3", "name it by its absolute path"),
        ]
        for (number, given) in cases.enumerated() {
            var request: [String: Any] = ["id": number, "op": "allow", "service": "svc", "account": "acct", "path": given.path]
            request["interpreter"] = given.interpreter
            let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
            let response = try connection.request(line)
            #expect(response?.errorCode == "bad_request", "\(line) -> \(String(describing: response))")
            #expect(((response?["error"] as? [String: Any])?["message"] as? String)?.contains(given.says) == true, "\(line) -> \(String(describing: response))")
        }
        let rules = try vault.ctl("rules", "svc", "acct")
        #expect(rules.stderr.contains("no rules"), "\(rules.text)\(rules.stderr)")
    }
}
