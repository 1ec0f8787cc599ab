import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore

/// The local Supabase Auth of Tests/Fixtures/supabase_server.py: 2-second access tokens,
/// rotation with a 2-second reuse interval, fault injection.
final class SupabaseServer: @unchecked Sendable {
    let fixture: PythonFixture
    var url: String { fixture.base }
    var anonKey: String { fixture.info["anon_key"] as? String ?? "" }

    /// `reuseSeconds`: the refresh-token reuse interval (the fixture's default 2 s; hosted Supabase's 10 s).
    init(_ vault: VaultHarness, reuseSeconds: Double? = nil) throws {
        fixture = try PythonFixture("supabase_server.py", in: vault, environment: reuseSeconds.map { ["SUPABASE_REUSE_SECONDS": String($0)] } ?? [:])
    }

    func counts() throws -> [String: Int] { try fixture.counts("/__count") }

    /// Moves time ahead for this server and for `vault`'s sessions alike (Supabase sends absolute
    /// expiry times): a token expires, a reuse interval passes, without sleeping.
    func advance(_ vault: VaultHarness, by seconds: Double) {
        vault.advanceSessionClock(by: seconds)
        #expect(fixture.post("/__advance", body: #"{"seconds":\#(seconds)}"#) == 200)
    }

    func fault(_ mode: String, count: Int, pid: Int32 = 0) throws {
        fixture.post("/__fault", body: #"{"mode":"\#(mode)","count":\#(count),"pid":\#(pid)}"#)
    }

    func ctl(_ vault: VaultHarness, _ command: String, email: String, password: String, service: String = "app") throws -> VaultHarness.Result {
        try vault.ctl([command, "supabase", "--url", url, "--anon-key", anonKey, "--email", email, "--service", service],
                      input: Array((password + "\n").utf8))
    }
}

@Suite struct SupabaseTests {
    /// The imitation is what the real client accepts: supabase_auth (PyPI) signs up, signs in,
    /// is refused a wrong password with GoTrue's error code, refreshes, asks for a password reset
    /// and signs out against the fixture.
    @Test func theRealSupabaseClientAcceptsTheFixture() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        let check = try vault.run([PythonFixture.packageRoot + "/.venv/bin/python", PythonFixture.packageRoot + "/Tests/Fixtures/supabase_client_check.py",
                                   server.url + "/auth/v1", server.anonKey])
        #expect(check.status == 0, "\(check.text)\(check.stderr)")
        #expect(check.text.split(separator: "\n").count == 6 && !check.text.contains("failed"), "\(check.text)")
    }

    func stored(_ vault: VaultHarness, _ account: String = "alice@example.com") throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "app", account).stdout)) as? [String: Any] ?? [:]
    }

    @Test func signUpSignInRefreshAndSignOut() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        let signup = try server.ctl(vault, "signup", email: "new@example.com", password: "a long new passphrase")
        #expect(signup.status == 0 && signup.stderr.contains("signed up"), "\(signup.stderr)")
        #expect(try vault.ctl("token", "app", "new@example.com", "--min-ttl", "0").status == 0)
        // Email confirmation on: no session yet, a clear next step.
        let pending = try server.ctl(vault, "signup", email: "confirm-me@example.com", password: "another passphrase")
        #expect(pending.status == 0 && pending.stderr.contains("confirmation link"), "\(pending.stderr)")
        #expect(try vault.ctl("get", "app", "confirm-me@example.com").status == 3)

        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password").status == 0)
        let first = try stored(vault)
        #expect(first["email"] as? String == "alice@example.com" && first["user_id"] as? String == "user-alice")
        server.advance(vault, by: 2.2)
        let refreshed = try vault.ctl("token", "app", "alice@example.com", "--min-ttl", "1")
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        #expect(try server.counts()["refresh"] == 1)
        #expect(try stored(vault)["refresh_token"] as? String != first["refresh_token"] as? String, "the rotated refresh token is stored")

        let logout = try vault.ctl("logout", "app", "alice@example.com")
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try server.counts()["logout"] == 1)
        #expect(try vault.ctl("get", "app", "alice@example.com").status == 3)
        #expect(try vault.ctl("logout", "app", "alice@example.com").status == 3)
    }

    @Test func sentencesForServerErrorsAndChecksBeforeAnyRequest() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        let wrong = try server.ctl(vault, "login", email: "alice@example.com", password: "not-her-password")
        #expect(wrong.status == 1 && wrong.stderr.contains("wrong email or password"))
        #expect(!wrong.stderr.contains("not-her-password"))
        let unconfirmed = try server.ctl(vault, "login", email: "pending@example.com", password: "pending-password")
        #expect(unconfirmed.stderr.contains("not confirmed"))
        let exists = try server.ctl(vault, "signup", email: "alice@example.com", password: "whatever123")
        #expect(exists.status == 1 && exists.stderr.contains("already exists"))
        let before = try server.counts()
        let badEmail = try server.ctl(vault, "login", email: "alice.example.com", password: "alice-password")
        #expect(badEmail.status == 2 && badEmail.stderr.contains("not an email address"))
        let short = try server.ctl(vault, "signup", email: "short@example.com", password: "12345")
        #expect(short.status == 2 && short.stderr.contains("shorter than 6"))
        #expect(try server.counts() == before, "nothing may be sent when the input is wrong")
        let weak = try server.ctl(vault, "signup", email: "weak@example.com", password: "password")
        #expect(weak.status == 0 && weak.stderr.contains("weak"))
        let reset = try vault.ctl(["reset-password", "supabase", "--url", server.url, "--anon-key", server.anonKey, "--email", "alice@example.com"])
        #expect(reset.status == 0 && reset.stderr.contains("reset email"))
        #expect(try server.counts()["recover"] == 1)
    }

    /// supabase-swift's stored `Session` (its JSONEncoder form: camelCase keys, `expiresAt` in
    /// seconds, the user nested) and supabase-js's (snake_case) are both sessions vault can keep
    /// and refresh; a token response without its endpoint names the option to pass.
    @Test func sessionsFromSupabaseSwiftAndSupabaseJSAreImportedAndRefreshed() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password").status == 0)
        let record = try stored(vault)
        let access = try #require(record["access_token"] as? String), refresh = try #require(record["refresh_token"] as? String)
        let expiresAt = try #require(record["expires_at"] as? Double)
        let swift = """
            {"accessToken":"\(access)","tokenType":"bearer","expiresIn":2,"expiresAt":\(expiresAt),"refreshToken":"\(refresh)",\
            "user":{"id":"\(record["user_id"] as? String ?? "u")","email":"alice@example.com","appMetadata":{},"createdAt":"2026-01-01T00:00:00Z"}}
            """
        let js = #"{"access_token":"\#(access)","token_type":"bearer","expires_in":2,"expires_at":\#(Int(expiresAt)),"refresh_token":"\#(refresh)","user":{"id":"u","email":"alice@example.com"}}"#
        for (name, session) in [("swift", swift), ("js", js)] {
            let imported = try vault.ctl(["session", "import", "app-\(name)", "alice@example.com", "--provider", "supabase", "--url", server.url, "--anon-key", server.anonKey],
                                         input: Array(session.utf8))
            #expect(imported.status == 0, "\(name): \(imported.stderr)")
            let listed = try vault.ctl("list", "app-\(name)").text
            #expect(listed.contains("\tsession\t") && listed.contains("supabase, alice@example.com"), "\(name): \(listed)")
        }
        // The refresh token is the same for both imports and single-use at the server: the first
        // refresh rotates it, so only one of them is refreshed here.
        let token = try vault.ctl("token", "app-swift", "--min-ttl", "100000")
        #expect(token.status == 0, "\(token.stderr)")
        #expect(!token.stdout.isEmpty && token.text != access + "\n")

        // A plain token response names no endpoint: the error names the option.
        let plain = try vault.ctl(["session", "import", "api", "me"], input: Array(#"{"access_token":"abc","token_type":"Bearer","expires_in":3600}"#.utf8))
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("--token-endpoint URL"), "\(plain.stderr)")
        #expect(!plain.stderr.contains("abc"))
    }

    /// vaultd killed after Supabase answered a refresh but before the new refresh token was
    /// stored leaves the previous session in the vault: within Supabase's reuse interval the old
    /// refresh token still yields the active session, so after a restart everything works.
    @Test func aSessionLeftFromBeforeARotationRecoversWithinTheReuseInterval() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password").status == 0)
        let before = try vault.ctl("get", "app", "alice@example.com").stdout
        server.advance(vault, by: 2.2)
        #expect(try vault.ctl("token", "app", "--min-ttl", "1").status == 0)  // rotates
        vault.stopDaemons()
        // What the vault holds if vaultd died between Supabase's answer and the store.
        #expect(try vault.ctl(["session", "import", "app", "alice@example.com"], input: before).status == 0)
        let recovered = try vault.ctl("token", "app", "--min-ttl", "1")
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let oldRefresh = (try JSONSerialization.jsonObject(with: Data(before)) as? [String: Any])?["refresh_token"] as? String
        #expect(try stored(vault)["refresh_token"] as? String != oldRefresh, "the active session's refresh token is stored again")
        #expect(try vault.ctl("token", "app", "--min-ttl", "0").status == 0)

        // Past the reuse interval, the old token revokes the family: sign in again (exit 4).
        #expect(try vault.ctl(["session", "import", "app", "alice@example.com"], input: before).status == 0)
        server.advance(vault, by: 2.3)
        let revoked = try vault.ctl("token", "app", "--min-ttl", "1")
        #expect(revoked.status == 4 && revoked.stderr.contains("refresh_token_already_used"), "\(revoked.stderr)")
    }

    /// The real thing: Supabase answers a refresh and vaultd is SIGKILLed the same instant,
    /// before or after it stored the rotated token. Restarted, the session works.
    @Test func vaultdKilledRightAfterSupabaseAnsweredARefreshStillHasAWorkingSession() throws {
        let vault = VaultHarness()
        // Hosted Supabase's 10 s reuse interval: the restart below must fit in it even on a
        // loaded machine (with the fixture's 2 s it failed now and then under load).
        let server = try SupabaseServer(vault, reuseSeconds: 10)
        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password").status == 0)
        server.advance(vault, by: 2.2)
        guard let pid = vault.daemonPIDs().first else {
            Issue.record("no vaultd running")
            return
        }
        try server.fault("kill", count: 1, pid: pid)
        let killed = try vault.ctl("token", "app", "--min-ttl", "1")
        #expect(killed.status == 5, "the caller sees the daemon go away: \(killed.stderr)")
        for _ in 0..<200 where !vault.daemonPIDs().isEmpty { usleep(10_000) }
        #expect(try server.counts()["refresh"] == 1)
        // Restarted by autostart: within the reuse interval either stored state refreshes.
        let after = try vault.ctl("token", "app", "--min-ttl", "1")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try vault.ctl("token", "app", "--min-ttl", "0").status == 0)
    }

    @Test func refreshAheadKeepsSessionsFreshWithoutAnyCaller() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        _ = try vault.startDaemon(["--refresh-ahead", "1.5"])
        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password").status == 0)
        let first = try stored(vault)
        // Two-second tokens, refreshed 1.5 s before they expire: nobody asks, yet they rotate.
        usleep(3_000_000)
        #expect((try server.counts()["refresh"] ?? 0) >= 2)
        #expect(try stored(vault)["refresh_token"] as? String != first["refresh_token"] as? String)
        #expect(try vault.ctl("token", "app", "--min-ttl", "0.5").status == 0)
    }

    /// On a terminal: a no-echo password prompt and a spinner while the request runs.
    /// Not on a terminal: neither.
    @Test func onATerminalThePasswordIsNotEchoedAndASpinnerShows() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        let plain = try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password")
        #expect(plain.status == 0 && !plain.stderr.contains("signing in…"))
        let command = "\(VaultHarness.vaultctl) login supabase --url \(server.url) --anon-key \(server.anonKey) --email alice@example.com --service tty"
        // script(1) runs vaultctl on a pseudo-terminal; the password is typed a moment later.
        let session = try vault.run(["/bin/bash", "-c", "(sleep 1; printf 'alice-password\\n') | /usr/bin/script -q -e -c \"$0\" /dev/null", command])
        #expect(session.status == 0, "\(session.text)")
        #expect(session.text.contains("Password for alice@example.com: "), "\(session.text)")
        #expect(session.text.contains("signing in…"), "\(session.text)")
        #expect(!session.text.contains("alice-password"), "the password must not be echoed")
        #expect(try vault.ctl("token", "tty", "--min-ttl", "0").status == 0)
    }

    /// A session object as supabase-js returns it (tokens and user, no settings), adopted with flags.
    @Test func aSupabaseSessionObjectCanBeImported() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password", service: "elsewhere").status == 0)
        let record = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "elsewhere", "alice@example.com").stdout)) as? [String: Any] ?? [:]
        let sessionObject: [String: Any] = [
            "access_token": record["access_token"]!, "refresh_token": record["refresh_token"]!, "token_type": "bearer",
            "expires_in": 2, "expires_at": record["expires_at"]!, "user": ["id": "user-alice", "email": "alice@example.com"],
        ]
        #expect(try vault.ctl("delete", "elsewhere", "alice@example.com").status == 0)
        let imported = try vault.ctl(["session", "import", "app", "alice@example.com", "--provider", "supabase", "--url", server.url, "--anon-key", server.anonKey],
                                     input: Array(try JSONSerialization.data(withJSONObject: sessionObject)))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try vault.ctl("list", "app").text.contains("supabase, alice@example.com"))
        server.advance(vault, by: 2.2)
        #expect(try vault.ctl("token", "app", "--min-ttl", "1").status == 0, "the imported session refreshes")
    }

    @Test func badServerAnswersAreClearErrorsAndLeaveTheSessionUntouched() throws {
        let vault = VaultHarness()
        vault.environment["VAULT_HTTP_TIMEOUT"] = "1"
        let server = try SupabaseServer(vault)
        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password").status == 0)
        let original = try stored(vault)
        server.advance(vault, by: 2.2)
        for (mode, expected) in [("html", "not JSON"), ("missing", "no access_token"), ("500", "HTTP 500"), ("reset", "cannot reach"), ("slow", "no answer within 1 s")] {
            // Enough faults for vaultd's retries and libcurl's own retry of a dropped connection.
            try server.fault(mode, count: 50)
            let result = try vault.ctl("token", "app", "--min-ttl", "1")
            #expect(result.status == 5, "\(mode): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(mode): \(result.stderr)")
            #expect(result.stderr.contains("unchanged"), "\(mode): \(result.stderr)")
            let after = try stored(vault)
            #expect(after["refresh_token"] as? String == original["refresh_token"] as? String, "\(mode) changed the stored session")
            #expect(after["needs_sign_in"] as? Bool == false, "\(mode)")
            try server.fault("none", count: 0)
        }
        // And with the server healthy again, the same session refreshes.
        #expect(try vault.ctl("token", "app", "--min-ttl", "1").status == 0)
    }
}
