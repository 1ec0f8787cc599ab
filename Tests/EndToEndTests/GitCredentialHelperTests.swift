import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// git-credential-vault through Debian's real git (2.39): `git credential fill/approve/reject`, a
/// clone and pushes over HTTP with Basic authentication (Tests/Fixtures/git_http_server.py), and
/// the newer protocol (expiry, refresh token, `capability[]=authtype`) written by the test itself,
/// since this git predates it.
@Suite struct GitCredentialHelperTests {
    static var helper: String { BuiltProducts.path("git-credential-vault") }

    /// The harness's environment for git: no system or user configuration, never a terminal prompt.
    func gitEnvironment(_ vault: VaultHarness, _ extra: [String: String] = [:]) -> [String: String] {
        ["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": vault.root + "/gitconfig", "GIT_TERMINAL_PROMPT": "0"].merging(extra) { $1 }
    }

    func credential(_ vault: VaultHarness, _ operation: String, _ lines: String, config: [String] = [], environment: [String: String] = [:]) throws -> VaultHarness.Result {
        let options = (["credential.helper=" + Self.helper] + config).flatMap { ["-c", $0] }
        return try vault.run(["/usr/bin/git"] + options + ["credential", operation], input: Array(lines.utf8), environment: gitEnvironment(vault, environment))
    }

    /// The helper run directly with `input` on stdin.
    func helper(_ vault: VaultHarness, _ operation: String, _ input: String, environment: [String: String] = [:]) throws -> VaultHarness.Result {
        try helper(vault, operation, Array(input.utf8), environment: environment)
    }

    func helper(_ vault: VaultHarness, _ operation: String, _ input: [UInt8], environment: [String: String] = [:]) throws -> VaultHarness.Result {
        try vault.run([Self.helper, operation], input: input, environment: gitEnvironment(vault, environment))
    }

    func items(_ vault: VaultHarness) throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: Data(try vault.ctl("list", "--json").stdout)) as? [[String: Any]] ?? []
    }

    @Test func fillApproveAndRejectThroughRealGit() throws {
        let vault = VaultHarness()
        let approve = try credential(vault, "approve", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=first secret\n\n")
        #expect(approve.status == 0, "\(approve.stderr)")
        #expect(try items(vault).map { "\($0["service"]!) \($0["account"]!)" } == ["git:https://git.example.com:8443 alice"])

        // No username: the one credential kept for the host.
        let fill = try credential(vault, "fill", "protocol=https\nhost=git.example.com:8443\n\n")
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.text.contains("username=alice\npassword=first secret\n"))
        // Another host, another username: nothing, so git would prompt (and cannot here).
        #expect(try credential(vault, "fill", "protocol=https\nhost=git.example.com\n\n").status != 0)
        #expect(try credential(vault, "fill", "protocol=https\nhost=git.example.com:8443\nusername=bob\n\n").status != 0)

        // With credential.useHttpPath the path is part of the key; without it, it is not sent.
        #expect(try credential(vault, "approve", "url=https://git.example.com:8443/team/repo.git\nusername=bob\npassword=bob secret\n\n",
                               config: ["credential.useHttpPath=true"]).status == 0)
        #expect(try items(vault).contains { $0["service"] as? String == "git:https://git.example.com:8443/team/repo.git" && $0["account"] as? String == "bob" })
        let byPath = try credential(vault, "fill", "url=https://git.example.com:8443/team/repo.git\n\n", config: ["credential.useHttpPath=true"])
        #expect(byPath.text.contains("username=bob\npassword=bob secret\n"), "\(byPath.stderr)")

        // Reject with a password that is not the stored one: kept. With the stored one: erased.
        #expect(try credential(vault, "reject", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=stale\n\n").status == 0)
        #expect(try credential(vault, "fill", "protocol=https\nhost=git.example.com:8443\n\n").text.contains("password=first secret"))
        #expect(try credential(vault, "reject", "protocol=https\nhost=git.example.com:8443\nusername=alice\npassword=first secret\n\n").status == 0)
        #expect(try items(vault).map { $0["service"] as? String } == ["git:https://git.example.com:8443/team/repo.git"])
    }

    @Test func expiryAndRefreshTokenAreKeptAndAnExpiredPasswordIsNotReturned() throws {
        let vault = VaultHarness()
        let later = Int(Date().timeIntervalSince1970) + 3600
        let lines = "protocol=https\nhost=forge.example\nusername=carol\npassword=token-1\npassword_expiry_utc=\(later)\noauth_refresh_token=refresh-1\n"
        #expect(try helper(vault, "store", lines).status == 0)
        let got = try helper(vault, "get", "protocol=https\nhost=forge.example\n")
        #expect(got.status == 0 && got.text == "username=carol\npassword=token-1\npassword_expiry_utc=\(later)\noauth_refresh_token=refresh-1\n", "\(got.stderr)")

        // Storing back what get returned, or what git 2.39 passes on (no expiry, no refresh token), writes nothing.
        let modified = try items(vault).first?["modified"] as? String
        usleep(20_000)
        #expect(try helper(vault, "store", "capability[]=authtype\n" + got.text).status == 0)
        #expect(try helper(vault, "store", "protocol=https\nhost=forge.example\nusername=carol\npassword=token-1\n").status == 0)
        #expect(try items(vault).first?["modified"] as? String == modified)
        #expect(try helper(vault, "get", "protocol=https\nhost=forge.example\n").text.contains("oauth_refresh_token=refresh-1"))

        // A new password replaces the old one with its own expiry; an expired one is not returned.
        #expect(try helper(vault, "store", "protocol=https\nhost=forge.example\nusername=carol\npassword=token-2\npassword_expiry_utc=1000\n").status == 0)
        #expect(try items(vault).first?["modified"] as? String != modified)
        let expired = try helper(vault, "get", "protocol=https\nhost=forge.example\nusername=carol\n")
        #expect(expired.status == 0 && expired.text.isEmpty, "\(expired.text)")
        #expect(try vault.ctl("get", "git:https://forge.example", "carol").text == "token-2\npassword_expiry_utc=1000")
    }

    @Test func unknownOperationsAreIgnoredAndHostileInputIsRefusedWithoutLosingAnything() throws {
        let vault = VaultHarness()
        let stored = "protocol=https\nhost=h.example\nusername=dave\npassword=kept-password\n"
        #expect(try helper(vault, "store", stored).status == 0)
        for operation in ["frobnicate", "GET", ""] {
            let ignored = try helper(vault, operation, stored)
            #expect(ignored.status == 0 && ignored.stdout.isEmpty && ignored.stderr.isEmpty, "\(operation): \(ignored.stderr)")
        }
        let capability = try helper(vault, "capability", "")
        #expect(capability.status == 0 && capability.text == "version 0\ncapability authtype\n")

        let secretish = "hunter2-never-shown"
        let hostile: [(String, [UInt8], String)] = [
            ("NUL", Array("protocol=https\nhost=h.example\u{0}\nusername=dave\npassword=\(secretish)\n".utf8), "contains a NUL byte"),
            ("long line", Array("protocol=https\nhost=h.example\nusername=dave\npassword=\(secretish)".utf8) + [UInt8](repeating: 0x41, count: 70_000) + [10], "over 65535 bytes"),
            ("oversized", Array(String(repeating: "wwwauth[]=Basic realm=\"x\"\n", count: 50_000).utf8), "over 1048576 bytes"),
            ("no equals", Array("protocol=https\nhost=h.example\n\(secretish)\n".utf8), "line 3 is not key=value"),
            ("empty key", Array("protocol=https\n=\(secretish)\n".utf8), "empty key"),
            ("bad protocol", Array("protocol=--upload-pack=x\nhost=h.example\nusername=dave\npassword=\(secretish)\n".utf8), "not a URL scheme"),
            ("bad expiry", Array("protocol=https\nhost=h.example\nusername=dave\npassword=\(secretish)\npassword_expiry_utc=soon\n".utf8), "password_expiry_utc"),
            ("not UTF-8", Array("protocol=https\nhost=h.".utf8) + [0xFF, 0xFE] + Array("\nusername=dave\npassword=\(secretish)\n".utf8), "not UTF-8"),
            ("control character", Array("protocol=https\nhost=h.example\u{1B}[2J\nusername=dave\npassword=\(secretish)\n".utf8), "control characters"),
        ]
        for (name, input, message) in hostile {
            for operation in ["get", "store", "erase"] {
                let result = try helper(vault, operation, input)
                #expect(result.status == 1 && result.stdout.isEmpty, "\(name) \(operation): \(result.status) \(result.text)")
                #expect(result.stderr.hasPrefix("git-credential-vault: ") && result.stderr.contains(message), "\(name) \(operation): \(result.stderr)")
                #expect(!result.stderr.contains(secretish) && !result.stderr.contains("kept-password"), "\(name): a secret in the message")
            }
        }
        // Everything after the first blank line is not git's: ignored.
        #expect(try helper(vault, "store", "protocol=https\nhost=h.example\nusername=dave\npassword=kept-password\n\n\u{0}junk").status == 0)
        #expect(try vault.ctl("get", "git:https://h.example", "dave").text == "kept-password")
        #expect(try items(vault).count == 1)
    }

    @Test func aLockedVaultIsReportedOnStderrAndNeverPromptsFor() throws {
        let vault = VaultHarness(passphraseFile: false)
        let result = try helper(vault, "get", "protocol=https\nhost=h.example\nusername=erin\n")
        #expect(result.status == 1 && result.stdout.isEmpty)
        #expect(result.stderr.contains("vault is locked") && result.stderr.contains("vaultctl unlock"), "\(result.stderr)")
        // Said once: the helper adds nothing vault's own sentence already says.
        #expect(result.stderr.components(separatedBy: "locked").count == 2 && result.stderr.components(separatedBy: "vaultctl unlock").count == 2, "\(result.stderr)")
        // git goes on without it (and, with prompts off here, fails instead of asking).
        let fill = try credential(vault, "fill", "protocol=https\nhost=h.example\nusername=erin\n\n")
        #expect(fill.status != 0 && fill.stderr.contains("vault is locked"), "\(fill.stderr)")
    }

    /// A real clone and two pushes: the first request prompts (askpass) and stores, later ones use
    /// the stored credential without asking, and a password changed on the server makes git
    /// reject the stored one, which is then erased.
    @Test func cloneAndPushOverHTTPWithBasicAuthentication() throws {
        let vault = VaultHarness()
        let server = try PythonFixture("git_http_server.py", in: vault)
        let state = vault.root + "/git_http_server.py"
        func setServerPassword(_ password: String) throws {
            try Data(#"{"alice": "\#(password)"}"#.utf8).write(to: URL(fileURLWithPath: state + "/users.json.tmp"))
            #expect(rename(state + "/users.json.tmp", state + "/users.json") == 0)
        }
        try setServerPassword("pw-one")
        let askpass = vault.root + "/askpass"
        let answers = vault.root + "/askpass-password"
        let asked = vault.root + "/askpass-count"
        try ExecutableFile.write(Array("#!/bin/sh\necho asked >> '\(asked)'\ncase \"$1\" in Username*) echo alice ;; *) cat '\(answers)' ;; esac\n".utf8), to: askpass)
        try Data("pw-one\n".utf8).write(to: URL(fileURLWithPath: answers))
        func askedCount() -> Int { ((try? String(contentsOfFile: asked, encoding: .utf8)) ?? "").split(separator: "\n").count }

        let environment = gitEnvironment(vault, ["GIT_ASKPASS": askpass, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com",
                                                 "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com"])
        func git(_ arguments: String...) throws -> VaultHarness.Result {
            try vault.run(["/usr/bin/git", "-c", "credential.helper=" + Self.helper, "-c", "init.defaultBranch=main", "-C", vault.root] + arguments, environment: environment)
        }
        let clone = try git("clone", "-q", server.base + "/repo.git", "work")
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(askedCount() == 2, "username and password asked once")
        let service = "git:" + server.base
        #expect(try vault.ctl("get", service, "alice").text == "pw-one")

        try Data("one\n".utf8).write(to: URL(fileURLWithPath: vault.root + "/work/file"))
        #expect(try git("-C", "work", "add", "file").status == 0)
        #expect(try git("-C", "work", "commit", "-qm", "one").status == 0)
        let push = try git("-C", "work", "push", "-q", "origin", "HEAD:main")
        #expect(push.status == 0, "\(push.stderr)")
        #expect(askedCount() == 2, "the second connection uses the stored credential")
        #expect(try server.counts("/__count")["authorized"] ?? 0 >= 3)

        // The password changes on the server: git rejects the stored one (erased), then asks;
        // askpass gives up, so the push fails and nothing is stored.
        try setServerPassword("pw-two")
        try Data().write(to: URL(fileURLWithPath: answers))
        let failed = try git("-C", "work", "push", "-q", "origin", "HEAD:main")
        #expect(failed.status != 0)
        #expect(try vault.ctl("get", service, "alice").status == 3, "the rejected password is erased")
        // With the new password from askpass, the push succeeds and the new password is stored.
        try Data("pw-two\n".utf8).write(to: URL(fileURLWithPath: answers))
        try Data("two\n".utf8).write(to: URL(fileURLWithPath: vault.root + "/work/file"))
        #expect(try git("-C", "work", "commit", "-qam", "two").status == 0)
        let again = try git("-C", "work", "push", "-q", "origin", "HEAD:main")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try vault.ctl("get", service, "alice").text == "pw-two")
    }

    /// A host linked to a sign-in session (git config credential.URL.vaultSession) is answered with
    /// the session's fresh access token: a Bearer credential when git offers the capability, a
    /// password otherwise; git storing it back changes nothing.
    @Test func aHostLinkedToASessionGetsTheFreshAccessToken() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        let login = try server.login(vault, service: "forge-session")
        #expect(login.status == 0, "\(login.stderr)")
        try Data("[credential \"https://forge.example:8443\"]\n\tvaultSession = forge-session\n".utf8)
            .write(to: URL(fileURLWithPath: vault.root + "/gitconfig"))
        // The session's access token now (the helper asks for one valid a minute: with the
        // fixture's 3-second tokens, each call refreshes first).
        func sessionToken() throws -> String {
            let session = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "forge-session", "alice").stdout)) as? [String: Any]
            return session?["access_token"] as? String ?? "no session"
        }
        let first = try sessionToken()

        let bearer = try helper(vault, "get", "capability[]=authtype\ncapability[]=state\nprotocol=https\nhost=forge.example:8443\nwwwauth[]=Bearer realm=\"x\"\n")
        #expect(bearer.status == 0, "\(bearer.stderr)")
        var token = try sessionToken()
        #expect(token != first, "refreshed before it was given out")
        let lines = bearer.text.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(4)) == ["capability[]=authtype", "authtype=Bearer", "credential=" + token, "ephemeral=true"], "\(lines)")
        #expect(lines.count == 5 && lines[4].hasPrefix("password_expiry_utc="))
        #expect(!bearer.text.contains("password="))

        // Without the capability no gated line is sent: the token is the password, with its expiry.
        let plain = try helper(vault, "get", "protocol=https\nhost=forge.example:8443\npath=some/repo.git\n")
        token = try sessionToken()
        #expect(!plain.text.contains("authtype") && !plain.text.contains("credential=") && !plain.text.contains("ephemeral"))
        #expect(plain.text.hasPrefix("username=alice\npassword=" + token + "\npassword_expiry_utc="), "\(plain.text)")
        let viaGit = try credential(vault, "fill", "protocol=https\nhost=forge.example:8443\nusername=git\n\n")
        token = try sessionToken()
        #expect(viaGit.text.contains("username=git\npassword=" + token + "\n"), "\(viaGit.stderr)")

        // git approving or rejecting the token stores and erases nothing; unlinked hosts still work.
        #expect(try credential(vault, "approve", viaGit.text + "\n").status == 0)
        #expect(try credential(vault, "reject", viaGit.text + "\n").status == 0)
        #expect(try items(vault).map { $0["service"] as? String } == ["forge-session"])
        #expect(try vault.ctl("token", "forge-session", "--min-ttl", "1").status == 0)
        let other = try helper(vault, "get", "capability[]=authtype\nprotocol=https\nhost=other.example\n")
        #expect(other.status == 0 && other.text.isEmpty)
    }
}
