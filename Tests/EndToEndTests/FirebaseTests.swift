import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore

/// Tests/Fixtures/firebase_server.py: emulator paths, 2-second ID tokens, string expiresIn.
final class FirebaseServer: @unchecked Sendable {
    let fixture: PythonFixture
    var url: String { fixture.base }
    var apiKey: String { fixture.info["api_key"] as? String ?? "" }

    init(_ vault: VaultHarness) throws {
        fixture = try PythonFixture("firebase_server.py", in: vault)
    }

    func counts() throws -> [String: Int] { try fixture.counts("/__count") }

    func disable(_ email: String) { fixture.post("/__disable", body: #"{"email":"\#(email)"}"#) }

    func ctl(_ vault: VaultHarness, _ command: String, email: String, password: String) throws -> VaultHarness.Result {
        try vault.ctl([command, "firebase", "--url", url, "--api-key", apiKey, "--email", email, "--service", "fb"], input: Array((password + "\n").utf8))
    }
}

@Suite struct FirebaseTests {
    @Test func signUpSignInRefreshResetAndADisabledUser() throws {
        let vault = VaultHarness()
        let server = try FirebaseServer(vault)
        let signup = try server.ctl(vault, "signup", email: "new@example.com", password: "a long new passphrase")
        #expect(signup.status == 0, "\(signup.stderr)")
        let exists = try server.ctl(vault, "signup", email: "new@example.com", password: "a long new passphrase")
        #expect(exists.status == 1 && exists.stderr.contains("already exists"))
        let wrong = try server.ctl(vault, "login", email: "alice@example.com", password: "nope-nope")
        #expect(wrong.status == 1 && wrong.stderr.contains("wrong email or password"))

        #expect(try server.ctl(vault, "login", email: "alice@example.com", password: "alice-password").status == 0)
        let first = try vault.ctl("token", "fb", "alice@example.com", "--min-ttl", "0")
        #expect(first.status == 0 && first.text.hasPrefix("id-"))
        // expiresIn arrives as the string "2": the session expires, and refreshes.
        vault.advanceSessionClock(by: 2.2)
        let refreshed = try vault.ctl("token", "fb", "alice@example.com", "--min-ttl", "1")
        #expect(refreshed.status == 0 && refreshed.text != first.text, "\(refreshed.stderr)")
        #expect(try server.counts()["refresh"] == 1)
        let listed = try vault.ctl("list", "fb", "--json").text
        #expect(listed.contains(#""provider":"firebase","user":"alice@example.com""#), "\(listed)")

        let reset = try vault.ctl(["reset-password", "firebase", "--url", server.url, "--api-key", server.apiKey, "--email", "alice@example.com"])
        let resets = try server.counts()["sendOobCode"]
        #expect(reset.status == 0 && resets == 1, "\(reset.stderr)")

        server.disable("alice@example.com")
        vault.advanceSessionClock(by: 2.2)
        let disabled = try vault.ctl("token", "fb", "alice@example.com", "--min-ttl", "1")
        #expect(disabled.status == 4 && disabled.stderr.contains("USER_DISABLED"), "\(disabled.stderr)")
        // Firebase has no client sign-out endpoint: logout forgets the session here.
        #expect(try vault.ctl("logout", "fb", "alice@example.com").status == 0)
        #expect(try vault.ctl("get", "fb", "alice@example.com").status == 3)
    }
}
