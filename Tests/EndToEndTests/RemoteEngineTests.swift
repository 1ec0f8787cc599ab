import Foundation
import Testing
import VaultCore

/// vaultd as the agent in front of a real OpenBao (`bao server -dev`): every auth method, reads
/// through the cache, refresh after another client's write, check-and-set between two machines,
/// soft delete and versions, the engine stopped and killed, TLS, and the policy on kv://.
/// One engine at a time (each is a server of its own), every wait bounded.
@Suite(.serialized) struct RemoteEngineTests {
    /// A vault whose vaultd asks the engine every second (a cached copy is fresh for two).
    func vault() -> VaultHarness {
        let vault = VaultHarness()
        vault.environment["VAULT_REMOTE_REFRESH"] = "1s"
        return vault
    }

    func engine(_ vault: VaultHarness, tls: Bool = false) throws -> OpenBaoServer {
        try OpenBaoServer(in: vault.root + "/bao\(tls ? "-tls" : "")", tls: tls)
    }

    /// Waits for `condition` until `seconds` have passed; true when it held.
    func waitUntil(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    @discardableResult
    func addToken(_ vault: VaultHarness, _ bao: OpenBaoServer, name: String = "team", extra: [String] = []) throws -> ProcessRunner.Result {
        let result = try vault.ctl(["remote", "add", name, "--url", bao.address, "--auth", "token"] + extra, input: Array("root".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    @Test func readsThroughTheCacheAndSeesAnotherClientsWrite() throws {
        let vault = vault()
        let bao = try engine(vault)
        try bao.put("app/db", ["password": "p1", "user": "alice"])
        try addToken(vault, bao)
        #expect(try vault.ctl("read", "kv://team/app/db?field=password").text == "p1")
        #expect(try vault.ctl("read", "kv://team/app/db").text == #"{"password":"p1","user":"alice"}"#)
        // Another client writes; the background refresh (1 s) brings the new version.
        try bao.put("app/db", ["password": "p2", "user": "alice"])
        #expect(try waitUntil { try vault.ctl("read", "kv://team/app/db?field=password").text == "p2" })
        // run and inject take kv:// like vault://.
        let out = vault.root + "/child.out"
        let run = try vault.ctl(["run", "--", "/bin/sh", "-c", #"printf %s "$DB" > "$0""#, out], environment: ["DB": "kv://team/app/db?field=user"])
        #expect(run.status == 0 && (try? String(contentsOfFile: out, encoding: .utf8)) == "alice", "\(run.stderr)")
        try "user={{ kv://team/app/db?field=user }}\n".write(toFile: vault.root + "/t.tmpl", atomically: true, encoding: .utf8)
        #expect(try vault.ctl("inject", "--in-file", vault.root + "/t.tmpl").text == "user=alice\n")
        // Listing a folder, and the remote in status and remote list, without its token.
        #expect(try vault.ctl("list", "kv://team/app/").text == "db\n")
        let status = try vault.ctl("status").text
        #expect(status.contains("remote team: \(bao.address), token, reachable"), "\(status)")
        let listed = try vault.ctl("remote", "list", "--json").text
        #expect(listed.contains(#""name":"team""#) && listed.contains(#""cached":1"#), "\(listed)")
        // Cached copies are vault's own items: not listed, not counted, not addressable.
        #expect(!(try vault.ctl("list").text.contains("vault.")))
        #expect(try vault.ctl("get", "vault.kv", "team/app/db").status == 2)
        #expect(try vault.ctl("set", "kv://team", "app/db", input: "x").status == 2)
        for text in [listed, status, try String(contentsOfFile: vault.daemonLog, encoding: .utf8)] {
            #expect(!text.contains("p1") && !text.contains("p2") && !text.contains("\"root\""))
        }
        // A missing secret, a bad reference, an unknown remote.
        let missing = try vault.ctl("read", "kv://team/app/nope")
        #expect(missing.status == 3 && missing.stderr.contains("no secret there"), "\(missing.stderr)")
        #expect(try vault.ctl("read", "kv://team/../etc").status == 2)
        let unknown = try vault.ctl("read", "kv://other/app/db")
        #expect(unknown.status == 3 && unknown.stderr.contains("no remote named 'other'"), "\(unknown.stderr)")
    }

    @Test func everyAuthMethodLogsInAndABadCredentialKeepsNothing() throws {
        let vault = vault()
        let bao = try engine(vault)
        try bao.put("app/db", ["password": "p1"])
        let role = try bao.appRole("ci")
        let added = try vault.ctl(["remote", "add", "ci", "--url", bao.address, "--auth", "approle", "--role-id", role.roleID], input: Array(role.secretID.utf8))
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try vault.ctl("read", "kv://ci/app/db?field=password").text == "p1")
        try bao.user("alice", password: "correct horse")
        let user = try vault.ctl(["remote", "add", "me", "--url", bao.address, "--auth", "userpass", "--username", "alice"], input: Array("correct horse".utf8))
        #expect(user.status == 0, "\(user.stderr)")
        #expect(try vault.ctl("read", "kv://me/app/db?field=password").text == "p1")
        // A wrong password: sign-in required (4), and no remote is kept.
        let wrong = try vault.ctl(["remote", "add", "bad", "--url", bao.address, "--auth", "userpass", "--username", "alice"], input: Array("wrong".utf8))
        #expect(wrong.status == 4 && wrong.stderr.contains("refused vaultd's login"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("wrong"))
        #expect(!(try vault.ctl("remote", "list").text.contains("bad")))
        // The options of each method are checked before anything is asked.
        let noRole = try vault.ctl(["remote", "add", "x", "--url", bao.address, "--auth", "approle"], input: Array("s".utf8))
        #expect(noRole.status == 2 && noRole.stderr.contains("--role-id"), "\(noRole.stderr)")
        let plain = try vault.ctl(["remote", "add", "x", "--url", "http://bao.example:8200", "--auth", "token"], input: Array("t".utf8))
        #expect(plain.status == 2 && plain.stderr.contains("plain HTTP"), "\(plain.stderr)")
        // remote login with a new secret id; remove forgets the remote and its cache.
        let fresh = try bao.must("write", "-f", "-field=secret_id", "auth/approle/role/ci/secret-id")
        #expect(try vault.ctl(["remote", "login", "ci"], input: Array(fresh.utf8)).status == 0)
        let removed = try vault.ctl("remote", "remove", "ci")
        #expect(removed.status == 0 && removed.text.contains("1 cached secret"), "\(removed.text)")
        #expect(try vault.ctl("read", "kv://ci/app/db").status == 3)
    }

    @Test func shortTokensAreRenewedAndReplacedWhileARunChildKeepsRunning() throws {
        let vault = vault()
        let bao = try engine(vault)
        try bao.put("app/db", ["password": "p1"])
        // Tokens good for 3 s, renewable to 8 s: several renewals and new logins in the test.
        let role = try bao.appRole("short", ttl: "3s", maxTTL: "8s")
        let added = try vault.ctl(["remote", "add", "ci", "--url", bao.address, "--auth", "approle", "--role-id", role.roleID], input: Array(role.secretID.utf8))
        #expect(added.status == 0, "\(added.stderr)")
        let pids = vault.root + "/pids"
        let child = Process()
        child.executableURL = URL(fileURLWithPath: VaultHarness.vaultctl)
        child.arguments = ["run", "--", "/bin/sh", "-c", #"echo $$ >> "$0"; sleep 14; echo $$ >> "$0""#, pids]
        child.environment = vault.environment.merging(["DB": "kv://ci/app/db?field=password"]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let start = Date()
        var reads = 0
        while Date().timeIntervalSince(start) < 12 {
            let read = try vault.ctl("read", "kv://ci/app/db?field=password", "--socket", vault.socketPath)
            #expect(read.status == 0 && read.text == "p1", "\(read.stderr)")
            reads += 1
            usleep(300_000)
        }
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
        // The child ran once, start to end: never restarted by a token change.
        let lines = try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == lines[1], "\(lines)")
        let log = try String(contentsOfFile: vault.daemonLog, encoding: .utf8)
        #expect(log.components(separatedBy: "logged in (approle)").count >= 2, "\(log)")
        #expect(!log.contains(role.secretID) && !log.contains("p1"))
        #expect(reads >= 10)
    }

    @Test func aConcurrentWriteIsAConflictNamingBothVersions() throws {
        let alice = vault(), bob = vault()
        let bao = try engine(alice)
        try bao.put("team/db", ["password": "v1", "host": "db1"])
        try addToken(alice, bao)
        try addToken(bob, bao)
        #expect(try alice.ctl("read", "kv://team/team/db?field=password").text == "v1")
        #expect(try bob.ctl("read", "kv://team/team/db?field=password").text == "v1")
        #expect(try alice.ctl(["write", "kv://team/team/db?field=password"], input: Array("alice".utf8)).status == 0)
        #expect(try bao.get("team/db") == ["password": "alice", "host": "db1"])
        let conflict = try bob.ctl(["write", "kv://team/team/db?field=password"], input: Array("bob".utf8))
        #expect(conflict.status == 6, "\(conflict.stderr)")
        #expect(conflict.stderr.contains("version 1") && conflict.stderr.contains("version 2") && conflict.stderr.contains("--force"), "\(conflict.stderr)")
        #expect(try bao.get("team/db")["password"] == "alice")
        // Bob reads the current value, then his write goes through on it.
        #expect(try bob.ctl("read", "kv://team/team/db?field=password").text == "alice")
        #expect(try bob.ctl(["write", "kv://team/team/db?field=password"], input: Array("bob".utf8)).status == 0)
        #expect(try bao.get("team/db") == ["password": "bob", "host": "db1"])
        // --force writes over a version Alice never saw.
        try bao.put("team/db", ["password": "carol", "host": "db2"])
        #expect(try alice.ctl(["write", "kv://team/team/db?field=host", "--force"], input: Array("db3".utf8)).status == 0)
        #expect(try bao.get("team/db") == ["password": "carol", "host": "db3"])
        // A new secret is written with cas 0.
        #expect(try alice.ctl(["write", "kv://team/team/new?field=token"], input: Array("t1".utf8)).status == 0)
        #expect(try bao.get("team/new") == ["token": "t1"])
    }

    @Test func historyOlderVersionsAndSoftDelete() throws {
        let vault = vault()
        let bao = try engine(vault)
        for value in ["a", "b", "c"] { try bao.put("app/key", ["k": value]) }
        try addToken(vault, bao)
        #expect(try vault.ctl("read", "kv://team/app/key?field=k").text == "c")
        #expect(try vault.ctl("read", "kv://team/app/key?field=k&version=1").text == "a")
        let history = try vault.ctl("history", "kv://team/app/key", "--json").text
        #expect(history.contains(#""version":3"#) && history.contains(#""current":true"#), "\(history)")
        #expect(try vault.ctl("delete", "kv://team/app/key").status == 0)
        let deleted = try vault.ctl("read", "kv://team/app/key?field=k")
        #expect(deleted.status == 3 && deleted.stderr.contains("was deleted at"), "\(deleted.stderr)")
        #expect(try vault.ctl("history", "kv://team/app/key").text.contains("deleted "))
        #expect(try vault.ctl("read", "kv://team/app/key?field=k&version=2").text == "b")
        try bao.must("kv", "undelete", "-mount=secret", "-versions=3", "app/key")
        #expect(try vault.ctl("read", "kv://team/app/key?field=k").text == "c")
        // Deleted by another client: the background refresh stops serving the cached copy.
        try bao.must("kv", "delete", "-mount=secret", "app/key")
        #expect(try waitUntil { try vault.ctl("read", "kv://team/app/key?field=k").status == 3 })
    }

    @Test func anUnreachableEngineIsServedFromTheCacheUntilMaxAge() throws {
        let vault = vault()
        let bao = try engine(vault)
        try bao.put("app/db", ["password": "offline-value"])
        try addToken(vault, bao, extra: ["--max-age", "8s"])
        #expect(try vault.ctl("read", "kv://team/app/db?field=password").text == "offline-value")
        // Stopped (SIGSTOP: connections hang): reads go on from the cache.
        bao.pause()
        defer { bao.resume() }
        let start = Date()
        var served = 0
        while Date().timeIntervalSince(start) < 5 {
            let read = try vault.ctl("read", "kv://team/app/db?field=password")
            #expect(read.status == 0 && read.text == "offline-value", "\(read.stderr)")
            served += 1
        }
        #expect(served >= 2)
        #expect(try waitUntil(10) { try vault.ctl("status").text.contains("unreachable") })
        // Past --max-age: refused, naming the age (exit 5).
        let refused = try #require(try waitUntil(20) { try vault.ctl("read", "kv://team/app/db?field=password").status == 5 } ? vault.ctl("read", "kv://team/app/db?field=password") : nil)
        #expect(refused.stderr.contains("older than the remote's --max-age of 8 s"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("offline-value"))
        // Back: served again.
        bao.resume()
        #expect(try waitUntil(20) { try vault.ctl("read", "kv://team/app/db?field=password").text == "offline-value" })
        // Killed: refused connections, the same rule.
        bao.kill()
        #expect(try vault.ctl("read", "kv://team/app/db?field=password").text == "offline-value")
        #expect(try waitUntil(25) { try vault.ctl("read", "kv://team/app/db?field=password").status == 5 })
    }

    @Test func syncFetchesAFolderSoAllOfItIsServedOffline() throws {
        let vault = vault()
        let bao = try engine(vault)
        let paths = (0..<12).map { "team/\($0 % 3 == 0 ? "db/" : "")s\($0)" }
        for (index, path) in paths.enumerated() { try bao.put(path, ["v": "value-\(index)"]) }
        try bao.put("other/x", ["v": "not synced"])
        try addToken(vault, bao)
        let synced = try vault.ctl("remote", "sync", "team", "team/")
        #expect(synced.status == 0 && synced.text == "fetched 12 secrets of remote 'team' into the cache\n", "\(synced.text)\(synced.stderr)")
        bao.kill()
        for (index, path) in paths.enumerated() {
            #expect(try vault.ctl("read", "kv://team/\(path)?field=v").text == "value-\(index)")
        }
        #expect(try vault.ctl("read", "kv://team/other/x").status == 5)
    }

    @Test func tlsWithTheEnginesCAAndNotAnother() throws {
        let vault = vault()
        let bao = try engine(vault, tls: true)
        let caFile = try #require(bao.caFile)
        try bao.put("app/db", ["password": "over-tls"])
        // The system's authorities do not know the dev CA: refused (5), nothing kept.
        let untrusted = try vault.ctl(["remote", "add", "tls", "--url", bao.address, "--auth", "token"], input: Array("root".utf8))
        #expect(untrusted.status == 5 && untrusted.stderr.contains("cannot be reached"), "\(untrusted.stderr)")
        // Another CA (a second dev server's) is refused too.
        let other = try OpenBaoServer(in: vault.root + "/other", tls: true)
        let wrongCA = try vault.ctl(["remote", "add", "tls", "--url", bao.address, "--auth", "token", "--ca-file", try #require(other.caFile)], input: Array("root".utf8))
        #expect(wrongCA.status == 5, "\(wrongCA.stderr)")
        other.kill()
        try addToken(vault, bao, name: "tls", extra: ["--ca-file", caFile])
        #expect(try vault.ctl("read", "kv://tls/app/db?field=password").text == "over-tls")
    }

    @Test func accessRulesAndTheAuditLogHoldForRemoteSecrets() throws {
        let vault = vault()
        let bao = try engine(vault)
        try bao.put("app/db", ["password": "guarded"])
        try addToken(vault, bao)
        #expect(try vault.ctl("read", "kv://team/app/db?field=password").text == "guarded")
        // Only /bin/true may read it now: vaultctl is refused (7), and the refusal is recorded.
        let allowed = try vault.ctl("allow", "kv://team", "app/db", "/bin/true")
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let denied = try vault.ctl("read", "kv://team/app/db?field=password")
        #expect(denied.status == 7 && denied.text.isEmpty, "\(denied.stderr)")
        let audit = try vault.ctl("audit", "--json").text
        #expect(audit.contains(#""op":"kv_get""#) && audit.contains(#""service":"kv://team""#) && audit.contains(#""result":"denied""#), "\(audit)")
        #expect(!audit.contains("guarded"))
        try vault.ctl("disallow", "kv://team", "app/db", "/bin/true")
        #expect(try vault.ctl("read", "kv://team/app/db?field=password").text == "guarded")
        #expect(try vault.ctl(["write", "kv://team/app/db?field=password"], input: Array("new".utf8)).status == 0)
        #expect(try vault.ctl("audit", "--json").text.contains(#""op":"kv_put""#))
    }

    @Test func hostileEndpointAnswersAreRefusedClearly() throws {
        let vault = vault()
        let hostile = try PythonFixture("hostile_provider.py", in: vault)
        func add(_ mode: String) throws -> ProcessRunner.Result {
            #expect(hostile.post("/__mode", body: mode) == 200)
            return try vault.ctl(["remote", "add", "evil", "--url", hostile.base, "--auth", "token"], input: Array("root".utf8))
        }
        let garbage = try add(#"{"mode": "raw", "status": 200, "body": "{not json"}"#)
        #expect(garbage.status == 5 && garbage.stderr.contains("cannot use"), "\(garbage.stderr)")
        let wrongTypes = try add(#"{"mode": "raw", "status": 200, "body": "{\"data\": {\"id\": 5, \"ttl\": \"x\"}}"}"#)
        #expect(wrongTypes.status == 5 && wrongTypes.stderr.contains("token"), "\(wrongTypes.stderr)")
        let sealed = try add(#"{"mode": "raw", "status": 503, "body": "{\"errors\": [\"Vault is sealed\"]}"}"#)
        #expect(sealed.status == 5 && sealed.stderr.contains("sealed"), "\(sealed.stderr)")
        let redirect = try add(#"{"mode": "redirect"}"#)
        #expect(redirect.status == 5 && redirect.stderr.contains("redirect"), "\(redirect.stderr)")
        let huge = try add(#"{"mode": "huge", "length": true}"#)
        #expect(huge.status == 5, "\(huge.stderr)")
        let escape = try add(#"{"mode": "raw", "status": 403, "body": "{\"errors\": [\"denied \u001b]0;pwned\u0007\"]}"}"#)
        #expect(escape.status == 4 && escape.stderr.contains("HTTP 403") && !escape.stderr.contains("\u{1b}"), "\(escape.stderr)")
        // Nothing was kept, and vaultd still answers.
        #expect(try vault.ctl("remote", "list").text.isEmpty)
        #expect(try vault.ctl("status").status == 0)
    }
}
