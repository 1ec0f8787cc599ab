import Testing
import VaultCore
@testable import VaultDaemon

/// How a caller is told apart: its script among an interpreter's arguments, its unit from its
/// cgroup, and what the rules say about it.
@Suite struct CallerIdentityTests {
    typealias Arguments = InterpreterArguments

    @Test func theScriptIsReadWithTheInterpretersOwnOptionTable() {
        #expect(Arguments.script(.python, ["python3", "x.py", "--flag"]) == "x.py")
        #expect(Arguments.script(.python, ["python3", "-B", "-uE", "/a/x.py"]) == "/a/x.py")
        // -I and -O are switches: the script is the word after them (it was once taken for their value).
        #expect(Arguments.script(.python, ["python3", "-I", "evil.py", "/allowed/tool.py"]) == "evil.py")
        #expect(Arguments.script(.python, ["python3", "-O", "evil.py", "/allowed/tool.py"]) == "evil.py")
        #expect(Arguments.script(.shell, ["bash", "-o", "pipefail", "-eu", "run.sh"]) == "run.sh")
        #expect(Arguments.script(.shell, ["sh", "+x", "run.sh"]) == "run.sh")
        #expect(Arguments.script(.perl, ["perl", "-wT", "--", "-odd.pl"]) == "-odd.pl")
        #expect(Arguments.script(.node, ["node", "--no-warnings", "app.js"]) == "app.js")
        #expect(Arguments.script(.plain, ["lua", "x.lua"]) == "x.lua")
        // Code from an option, from stdin, or loaded by one: no script a rule could name.
        for arguments: (InterpreterArguments.Family, [String]) in [
            (.python, ["python3", "-c", "print(1)", "x.py"]), (.python, ["python3", "-m", "module"]), (.python, ["python3", "-uc", "x", "x.py"]),
            (.python, ["python3", "-W", "ignore::evil.Warning", "x.py"]), (.python, ["python3", "-X", "pycache_prefix=/tmp/p", "x.py"]),
            (.python, ["python3", "-i", "x.py"]), (.shell, ["sh", "-"]), (.shell, ["bash", "-c", "x", "run.sh"]), (.shell, ["sh", "-s", "run.sh"]),
            (.shell, ["bash", "-O", "extdebug", "run.sh"]), (.shell, ["bash", "--rcfile", "evil", "run.sh"]), (.perl, ["perl", "-MEvil", "x.pl"]),
            (.perl, ["perl", "-I/tmp/evil", "x.pl"]), (.ruby, ["ruby", "-revil", "x.rb"]), (.node, ["node", "--require", "evil", "app.js"]),
            (.node, ["node", "-e", "1"]), (.plain, ["php", "-d", "auto_prepend_file=evil", "x.php"]), (.python, ["python3"]), (.python, []),
        ] {
            #expect(Arguments.script(arguments.0, arguments.1) == nil, "\(arguments.1)")
        }
        #expect(Arguments.family(ofExecutable: "python3.11") == .python && Arguments.family(ofExecutable: "bash") == .shell)
        #expect(Arguments.family(ofExecutable: "git") == nil && Arguments.family(ofExecutable: "vaultctl") == nil)
    }

    @Test func anInjectionVariableInTheEnvironmentIsNamed() {
        func environ(_ entries: String...) -> [UInt8] { Array(entries.joined(separator: "\0").utf8) + [0] }
        #expect(CodeInjection.reason(environ: environ("HOME=/h", "LD_PRELOAD=/tmp/evil.so", "PATH=/bin")) == "LD_PRELOAD is set in its environment")
        #expect(CodeInjection.reason(environ: environ("PYTHONPATH=/tmp/x")) == "PYTHONPATH is set in its environment")
        #expect(CodeInjection.reason(environ: environ("BASH_FUNC_ls%%=() { evil; }")) == "BASH_FUNC_ls%% is set in its environment")
        // Empty, or only a look-alike: nothing injected.
        #expect(CodeInjection.reason(environ: environ("LD_PRELOAD=", "MY_LD_PRELOAD=x", "PYTHONUNBUFFERED=1", "HOME=/h")) == nil)
        #expect(CodeInjection.reason(environ: []) == nil)
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
        // A script is matched by its path and hash and by its interpreter's: a program of the
        // user named like an interpreter runs it in vain.
        let tool = try ItemKey(service: "s", account: "script")
        rules.update(tool) {
            $0.allow.append(AccessRules.Program(path: "/opt/tool.py", sha256: "aa", added: "", interpreter: .init(path: "/usr/bin/python3.11", sha256: "py")))
        }
        var script = CallerIdentity(pid: 2)
        (script.executable, script.executableHash, script.script, script.scriptHash) = ("/usr/bin/python3.11", "py", "/opt/tool.py", "aa")
        #expect(rules.verdict(for: tool, caller: script) == .allowed("/opt/tool.py"))
        var impostor = script
        (impostor.executable, impostor.executableHash) = ("/home/u/x/python3", "other")
        #expect(rules.verdict(for: tool, caller: impostor) == .notAllowed)
        impostor.executable = "/usr/bin/python3.11"
        #expect(rules.verdict(for: tool, caller: impostor) == .changed("/opt/tool.py"))
        // A rule for a script written before interpreters were pinned matches no caller, and says so.
        rules.update(key) { $0.allow.append(AccessRules.Program(path: "/opt/tool.py", sha256: "aa", added: "")) }
        #expect(rules.verdict(for: key, caller: script) == .interpreterNotPinned("/opt/tool.py"))
        // Injected code: no rule matches, not even the program's own.
        caller.executableHash = "aa"
        caller.injection = "LD_PRELOAD is set in its environment"
        #expect(rules.verdict(for: key, caller: caller) == .injected("LD_PRELOAD is set in its environment"))
        rules.update(key) { $0.allow.removeAll { $0.path == "/opt/tool.py" } }
        // The entry goes once it holds nothing.
        rules.update(key) { $0.allow.removeAll() }
        rules.update(tool) { $0.allow.removeAll() }
        #expect(rules.items.isEmpty)
    }
}
