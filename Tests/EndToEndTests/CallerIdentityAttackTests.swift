import Foundation
import Testing
import VaultCore

/// Attacks 4, 5 and 6 of issue 30, as a program of the user would make them, against an item
/// allowed to one Python script run by /usr/bin/python3: a copy of the interpreter elsewhere, an
/// interpreter option that runs another script, and code injected through the environment. Every
/// program here runs as an ordinary uid (`UnprivilegedUser`).
@Suite struct CallerIdentityAttackTests {
    let rules = AccessRulesTests()

    /// A vault whose item svc/tool is allowed to `tool.py` (run by /usr/bin/python3), and an
    /// `evil.py` that reads items the same way from another path.
    func allowedScript() throws -> (VaultHarness, tool: String, evil: String) {
        let vault = VaultHarness(unprivileged: true)
        try vault.ctl("set", "svc", "tool", input: "for-the-tool-only")
        let fixture = vault.fixture("vault_get.py")
        let tool = vault.root + "/tool.py", evil = vault.root + "/evil.py"
        try FileManager.default.copyItem(atPath: fixture, toPath: tool)
        try FileManager.default.copyItem(atPath: fixture, toPath: evil)
        #expect(try vault.ctl("allow", "--interpreter", "/usr/bin/python3", "svc", "tool", tool).status == 0)
        #expect(try vault.run(["/usr/bin/python3", tool, vault.socketPath, "svc", "tool"]).text == "for-the-tool-only\n")
        return (vault, tool, evil)
    }

    @Test func aCopyOfTheInterpreterElsewhereDoesNotPassForIt() throws {
        let (vault, tool, _) = try allowedScript()
        // Named like an interpreter, in a directory of the user's: a program of the user's choosing.
        try FileManager.default.createDirectory(atPath: vault.root + "/x", withIntermediateDirectories: true)
        let impostor = vault.root + "/x/python3"
        try FileManager.default.copyItem(atPath: "/usr/bin/python3.11", toPath: impostor)
        vault.own(vault.root + "/x")
        #expect(try vault.run([impostor, tool, vault.socketPath, "svc", "tool"]).text == "error denied\n")
    }

    @Test func anOptionBeforeAnotherScriptDoesNotPassForTheAllowedOne() throws {
        let (vault, tool, evil) = try allowedScript()
        for option in ["-I", "-O", "-W"] {
            let result = try vault.run(["/usr/bin/python3", option, evil, tool, vault.socketPath, "svc", "tool"])
            #expect(!result.text.contains("for-the-tool-only"), "\(option): \(result.text)")
        }
    }

    @Test func codeInjectedThroughTheEnvironmentIsRefusedAndAudited() throws {
        let (vault, tool, _) = try allowedScript()
        let site = vault.root + "/site"
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try "print('injected')\n".write(toFile: site + "/sitecustomize.py", atomically: true, encoding: .utf8)
        vault.own(site)
        let arguments = ["/usr/bin/python3", tool, vault.socketPath, "svc", "tool"]
        let injected = try vault.run(arguments, environment: ["PYTHONPATH": site])
        #expect(injected.text == "injected\nerror denied\n", "\(injected.text)")
        let preloaded = try vault.run(arguments, environment: ["LD_PRELOAD": "/lib/x86_64-linux-gnu/libc.so.6"])
        #expect(preloaded.text == "error denied\n", "\(preloaded.text)")
        // The same script with a clean environment is still served.
        #expect(try vault.run(arguments).text == "for-the-tool-only\n")
        let refusals = try rules.records(vault).filter { $0["account"] as? String == "tool" && $0["result"] as? String == "denied" }
        #expect(refusals.count == 2 && refusals.allSatisfy { ($0["grant"] as? String)?.contains("is set in its environment") == true }, "\(refusals)")
    }

    /// A native library the allowed script loads, from a directory of the user's: the script and
    /// the interpreter are the ones allowed, the code is the user's choosing. Refused and audited
    /// with the file named; the system's copy of the same library is served.
    @Test func codeLoadedFromAFileTheUserCanChangeIsRefused() throws {
        let (vault, tool, _) = try allowedScript()
        let system = "/lib/x86_64-linux-gnu/libm.so.6"
        let arguments = ["/usr/bin/python3", tool, vault.socketPath, "svc", "tool"]
        #expect(try vault.run(arguments + [system]).text == "for-the-tool-only\n")
        // Put there by the user, as a program of the user would.
        let planted = vault.root + "/lib/libm.so.6"
        #expect(try vault.run(["/bin/mkdir", vault.root + "/lib"]).status == 0)
        #expect(try vault.run(["/bin/cp", system, planted]).status == 0)
        #expect(try vault.run(arguments + [planted]).text == "error denied\n")
        let refusals = try rules.records(vault).filter { $0["account"] as? String == "tool" && $0["result"] as? String == "denied" }
        #expect(refusals.count == 1 && (refusals.first?["grant"] as? String)?.contains("it runs code from \(planted), which its user can change") == true, "\(refusals)")
    }

    /// Attack 8: a program that serves whoever runs it, once allowed, serves every program. Such
    /// a rule is refused unless the user says that is meant; nothing is written.
    @Test func aRuleForAProgramThatServesAnyCallerNeedsToBeMeant() throws {
        let vault = VaultHarness(unprivileged: true)
        try vault.ctl("set", "svc", "acct", input: "guarded")
        let copy = try rules.program(vault, "renamed-ctl")
        for program in [copy, vault.product("git-credential-vault"), "/usr/bin/python3"] {
            let refused = try vault.ctl("allow", "svc", "acct", program)
            #expect(refused.status == 2 && refused.stderr.contains("--any-caller") && refused.stderr.contains("every program that can run it"), "\(program): \(refused.stderr)")
        }
        #expect(try vault.ctl("rules", "svc", "acct").stderr.contains("no rules"))
        #expect(try vault.ctl("allow", "--any-caller", "svc", "acct", copy).status == 0)
        #expect(try vault.run([copy, "get", "svc", "acct"]).text == "guarded")
    }
}
