import Testing
import VaultCore
@testable import VaultDaemon

/// How a caller is told apart: its script among an interpreter's arguments, its unit from its
/// cgroup, and what the rules say about it.
@Suite struct CallerIdentityTests {
    @Test func theScriptIsTheFirstArgumentThatIsNoOption() {
        #expect(PeerProcess.scriptArgument(["python3", "x.py", "--flag"]) == "x.py")
        #expect(PeerProcess.scriptArgument(["python3", "-B", "-W", "ignore", "/a/x.py"]) == "/a/x.py")
        #expect(PeerProcess.scriptArgument(["bash", "-o", "pipefail", "run.sh"]) == "run.sh")
        #expect(PeerProcess.scriptArgument(["perl", "--", "-odd.pl"]) == "-odd.pl")
        // Code from an option or stdin: no script a rule could name.
        #expect(PeerProcess.scriptArgument(["python3", "-c", "print(1)", "x.py"]) == nil)
        #expect(PeerProcess.scriptArgument(["python3", "-m", "module"]) == nil)
        #expect(PeerProcess.scriptArgument(["sh", "-"]) == nil)
        #expect(PeerProcess.scriptArgument(["python3"]) == nil)
        #expect(PeerProcess.scriptArgument([]) == nil)
        #expect(PeerProcess.isInterpreter("/usr/bin/python3.11") && PeerProcess.isInterpreter("/bin/bash"))
        #expect(!PeerProcess.isInterpreter("/usr/bin/git") && !PeerProcess.isInterpreter("/usr/bin/vaultctl"))
    }

    @Test func theUnitIsTheLastServiceOrScopeOfTheCgroup() {
        #expect(PeerProcess.unit(fromCgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/backup.service\n") == "backup.service")
        #expect(PeerProcess.unit(fromCgroup: "0::/user.slice/user-1000.slice/session-3.scope\n") == "session-3.scope")
        #expect(PeerProcess.unit(fromCgroup: "0::/\n") == nil)
        #expect(PeerProcess.unit(fromCgroup: "garbage") == nil)
        #expect(PeerProcess.unit(fromCgroup: "") == nil)
    }

    @Test func rulesMatchPathAndContentAndSayWhenAProgramChanged() throws {
        let key = try ItemKey(service: "s", account: "a")
        var rules = AccessRules()
        rules.update(key) { $0.allow.append(AccessRules.Program(path: "/usr/bin/tool", sha256: "aa", added: "")) }
        var caller = CallerIdentity(pid: 1)
        caller.executable = "/usr/bin/tool"
        caller.executableHash = "aa"
        #expect(rules.verdict(for: key, caller: caller) == .allowed("/usr/bin/tool"))
        caller.executableHash = "bb"
        #expect(rules.verdict(for: key, caller: caller) == .changed("/usr/bin/tool"))
        #expect(rules.verdict(for: key, caller: .unknown) == .notAllowed)
        #expect(rules.verdict(for: try ItemKey(service: "s", account: "other"), caller: .unknown) == .unguarded)
        // A script is matched by its own path and hash, whatever the interpreter's.
        var script = CallerIdentity(pid: 2)
        (script.executable, script.executableHash, script.script, script.scriptHash) = ("/usr/bin/python3.11", "py", "/usr/bin/tool", "aa")
        #expect(rules.verdict(for: key, caller: script) == .allowed("/usr/bin/tool"))
        // The entry goes once it holds nothing.
        rules.update(key) { $0.allow.removeAll() }
        #expect(rules.items.isEmpty)
    }
}
