import Foundation
import Testing
import VaultCore
import VaultSystem

/// The git and Docker helpers pointed at a team's engine (a real `bao server -dev`): Debian's
/// git and docker-py store, get and erase credentials kept as kv:// secrets, each credential
/// one version holding all its fields, a second machine (its own vaultd and home) sees the
/// first's, and a rule on such a credential holds against an ordinary program of the user.
@Suite(.serialized) struct RemoteHelpersTests {
    let remotes = RemoteEngineTests()
    static let url = "https://git.example.com:8443"
    /// Where git-credential-vault keeps alice's credential for `url` under folder `git`.
    static let alicePath = "git/" + KVPath.encoded(url) + "/alice"

    func git(_ vault: VaultHarness, _ operation: String, _ lines: String, helper: String? = nil) throws -> VaultHarness.Result {
        let helper = helper ?? vault.product("git-credential-vault") + " --remote team/git"
        let environment = ["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": vault.root + "/gitconfig", "GIT_TERMINAL_PROMPT": "0"]
        // From the harness's directory: an ordinary uid may not enter the checkout (a 0700 home in CI).
        return try vault.run(["/usr/bin/env", "-C", vault.root, "/usr/bin/git", "-c", "credential.helper=" + helper, "credential", operation],
                             input: Array(lines.utf8), environment: environment)
    }

    /// The versions the engine keeps of `path`, from `vaultctl history` (the path's `%` encoded
    /// once more, as a reference decodes it).
    func versions(_ vault: VaultHarness, _ path: String) throws -> [[String: Any]] {
        let reference = "kv://team/" + path.split(separator: "/").map { KVPath.encoded(String($0)) }.joined(separator: "/")
        let history = try vault.ctl("history", reference, "--json")
        return (try? JSONSerialization.jsonObject(with: Data(history.stdout)) as? [[String: Any]]) ?? []
    }

    @Test func gitKeepsCredentialsInTheEngine() throws {
        let vault = remotes.vault()
        let bao = try remotes.engine(vault)
        try remotes.addToken(vault, bao)
        let approve = try git(vault, "approve", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=first secret\n\n")
        #expect(approve.status == 0, "\(approve.stderr)")
        // In the engine, one encoded segment per name; no local item.
        #expect(try bao.must("kv", "list", "-mount=secret", "git/").contains(KVPath.encoded(Self.url) + "/"))
        #expect(try vault.ctl("list").text.isEmpty)
        let fill = try git(vault, "fill", "protocol=https\nhost=git.example.com:8443\n\n")
        #expect(fill.text.contains("username=alice\npassword=first secret\n"), "\(fill.stderr)")

        // A second machine with its own vaultd and home reads it through the engine.
        let laptop = remotes.vault()
        try remotes.addToken(laptop, bao)
        #expect(try git(laptop, "fill", "protocol=https\nhost=git.example.com:8443\nusername=alice\n\n").text.contains("password=first secret\n"))

        // An OAuth credential: password, expiry and refresh token in one version; storing what
        // get answered (git 2.39 drops the extra lines) keeps them without a new version.
        let oauth = "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=oauth-1\npassword_expiry_utc=4102444800\noauth_refresh_token=rt-1\n\n"
        #expect(try vault.run([vault.product("git-credential-vault"), "--remote", "team/git", "store"], input: Array(oauth.utf8)).status == 0)
        #expect(try versions(vault, Self.alicePath).count == 2)
        #expect(try git(vault, "approve", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=oauth-1\n\n").status == 0)
        #expect(try versions(vault, Self.alicePath).count == 2)
        let direct = try vault.run([vault.product("git-credential-vault"), "--remote=team/git", "get"], input: Array("protocol=https\nhost=git.example.com:8443\n\n".utf8))
        #expect(direct.text == "username=alice\npassword=oauth-1\npassword_expiry_utc=4102444800\noauth_refresh_token=rt-1\n", "\(direct.stderr)")

        // Two usernames for the URL: git must choose; the helper says so and answers nothing.
        #expect(try git(laptop, "approve", "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=bob secret\n\n").status == 0)
        let ambiguous = try vault.run([vault.product("git-credential-vault"), "--remote", "team/git", "get"], input: Array("protocol=https\nhost=git.example.com:8443\n\n".utf8))
        #expect(ambiguous.text.isEmpty && ambiguous.stderr.contains("2 credentials are kept"), "\(ambiguous.stderr)")

        // reject with another password keeps it; with the kept one it is a soft delete.
        #expect(try git(vault, "reject", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=stale\n\n").status == 0)
        #expect(try git(vault, "fill", "protocol=https\nhost=git.example.com:8443\nusername=alice\n\n").text.contains("password=oauth-1"))
        #expect(try git(vault, "reject", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=oauth-1\n\n").status == 0)
        #expect(try git(vault, "fill", "protocol=https\nhost=git.example.com:8443\nusername=alice\n\n").status != 0)
        #expect(try versions(vault, Self.alicePath).last?["deleted"] != nil)

        // A bad setting is a clear error, and no secret reaches a log.
        let bad = try vault.run([vault.product("git-credential-vault"), "--remote", "no such/remote", "get"], input: Array("protocol=https\nhost=h\n\n".utf8))
        #expect(bad.status == 1 && bad.stderr.contains("--remote must be REMOTE/FOLDER"), "\(bad.stderr)")
        let unknown = try git(vault, "fill", "protocol=https\nhost=h\nusername=u\n\n", helper: vault.product("git-credential-vault") + " --remote other/git")
        #expect(unknown.stderr.contains("no remote named 'other'"), "\(unknown.stderr)")
        for log in [vault.daemonLog, laptop.daemonLog] {
            let text = try String(contentsOfFile: log, encoding: .utf8)
            #expect(!text.contains("first secret") && !text.contains("oauth-1") && !text.contains("rt-1"))
        }
    }

    @Test func dockerPyKeepsCredentialsInTheEngine() throws {
        let vault = remotes.vault()
        let bao = try remotes.engine(vault)
        try remotes.addToken(vault, bao)
        let path = FileSystem.parentDirectory(of: vault.product("docker-credential-vault")) + ":/usr/bin:/bin"
        let program = """
            import json, docker.credentials, docker.credentials.errors as errors
            store = docker.credentials.Store("vault")
            def show(value): print(json.dumps(value, sort_keys=True))
            try:
                store.get("registry.example:5000")
            except errors.CredentialsNotFound:
                show("not found")
            store.store("registry.example:5000", "carol", "token-1")
            store.store("https://index.docker.io/v1/", "dave", "token-2")
            show(store.get("registry.example:5000"))
            show(store.list())
            store.erase("https://index.docker.io/v1/")
            show(store.list())
            """
        let result = try vault.run([PythonFixture.packageRoot + "/.venv/bin/python", "-c", program],
                                   environment: ["PATH": path, "VAULT_DOCKER_REMOTE": "team/docker"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.split(separator: "\n").map(String.init) == [
            #""not found""#,
            #"{"Secret": "token-1", "ServerURL": "registry.example:5000", "Username": "carol"}"#,
            #"{"https://index.docker.io/v1/": "dave", "registry.example:5000": "carol"}"#,
            #"{"registry.example:5000": "carol"}"#,
        ], "\(result.text)")
        // Both fields in one version, as any client of the engine reads them.
        #expect(try bao.get("docker/" + KVPath.encoded("registry.example:5000")) == ["username": "carol", "secret": "token-1"])
        #expect(try versions(vault, "docker/" + KVPath.encoded("registry.example:5000")).count == 1)
        // A setting that names no remote: the reference helper's error form, on stdout.
        let bad = try vault.run([vault.product("docker-credential-vault"), "list"], environment: ["VAULT_DOCKER_REMOTE": "bad name/x"])
        #expect(bad.status == 1 && bad.text.contains("VAULT_DOCKER_REMOTE must be REMOTE/FOLDER"), "\(bad.text)")
    }

    /// A credential kept in the engine and allowed to one script: an ordinary program of the
    /// user gets it by no other way vaultd offers (vaultctl, an older version, the cached
    /// copy's item, another script, the git helper), and each refusal is on the record.
    @Test(UnprivilegedUser.otherUIDs) func aRuleOnARemoteCredentialHoldsAgainstAProgramOfTheUser() throws {
        let vault = VaultHarness(unprivileged: true)
        vault.environment["VAULT_REMOTE_REFRESH"] = "1s"
        let bao = try remotes.engine(vault)
        try remotes.addToken(vault, bao)
        let approved = try git(vault, "approve", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=for-the-tool-only\n\n")
        #expect(approved.status == 0, "\(approved.stderr)")
        let tool = vault.root + "/tool.py", evil = vault.root + "/evil.py"
        try FileManager.default.copyItem(atPath: vault.fixture("vault_get.py"), toPath: tool)
        try FileManager.default.copyItem(atPath: vault.fixture("vault_get.py"), toPath: evil)
        vault.own(tool)
        vault.own(evil)
        let allowed = try vault.ctl("allow", "--interpreter", "/usr/bin/python3", "kv://team", Self.alicePath, tool)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try vault.run(["/usr/bin/python3", tool, vault.socketPath, "kv://team", Self.alicePath]).text == "for-the-tool-only\n")

        #expect(try vault.run(["/usr/bin/python3", evil, vault.socketPath, "kv://team", Self.alicePath]).text == "error denied\n")
        let reference = "kv://team/git/" + KVPath.encoded(KVPath.encoded(Self.url)) + "/alice"
        for attempt in [reference + "?field=password", reference + "?field=password&version=1"] {
            let read = try vault.ctl("read", attempt)
            #expect(read.status == 7 && read.text.isEmpty, "\(attempt): \(read.stderr)")
        }
        #expect(try vault.ctl("get", ItemKey.remoteCacheService, "team/" + Self.alicePath).status == 2)
        let fill = try git(vault, "fill", "protocol=https\nhost=git.example.com:8443\nusername=alice\n\n")
        #expect(fill.status != 0 && !fill.text.contains("for-the-tool-only"), "\(fill.text)")
        let audit = try vault.ctl("audit", "--json").text
        let refusals = audit.split(separator: "\n").filter { $0.contains(#""result":"denied""#) && $0.contains(#""service":"kv://team""#) }
        #expect(refusals.count == 4, "\(audit)")
        #expect(!audit.contains("for-the-tool-only"))
    }
}
