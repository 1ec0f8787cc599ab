import Foundation
import Testing
import VaultCore

/// Refreshes racing other refreshes and sign-ins: two vaultd on one vault file against the real
/// django-oauth-toolkit (rotation on, so a refresh token presented twice is `invalid_grant`), and
/// a sign-in while a refresh the provider will reject is in flight.
@Suite struct TokenCoordinationTests {
    static func waitUntil(_ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return false
    }

    static func stored(_ vault: VaultHarness, _ service: String, _ account: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", service, account).stdout)) as? [String: Any] ?? [:]
    }

    /// Two vaultd on one vault file (two sockets), callers on both asking at once for an expired
    /// session: one refresh reaches the server, every caller gets the new token, and the stored
    /// refresh token is the live one (the next refresh works).
    @Test func twoDaemonsOnOneVaultFileRefreshAnExpiredSessionOnce() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)  // starts the first vaultd, on the default socket
        let second = vault.root + "/run/second.sock"
        _ = try vault.startDaemon(["--socket", second], waitUntilServing: false)
        try vault.waitForSocket(second)
        #expect(try vault.ctl(["--socket", second, "list"]).text.contains("example"), "the second vaultd serves the same vault file")

        vault.advanceSessionClock(by: 3.2)  // the 3-second access token expires
        // A slow server: every caller has asked before the first refresh is answered.
        #expect(server.fixture.post("/__hold?seconds=1.5", body: "") == 200)
        let before = try server.tokenRequests()
        let callers = try (0..<8).map { index in
            try vault.startCtl((index % 2 == 0 ? [] : ["--socket", second]) + ["token", "example", "--min-ttl", "1"])
        }
        var outputs = Set<String>()
        var statuses: [Int32] = []
        for (process, output) in callers {
            outputs.insert(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            process.waitUntilExit()
            statuses.append(process.terminationStatus)
        }
        #expect(statuses == Array(repeating: 0, count: 8), "every caller is served")
        #expect(try server.tokenRequests() == before + 1, "exactly one refresh reaches the server")
        #expect(outputs.count == 1 && outputs.first?.isEmpty == false, "all print the same token")
        #expect(try Self.stored(vault, "example", "alice")["needs_sign_in"] as? Bool == false)

        // Alive: the stored refresh token is the one the server issued last.
        #expect(server.fixture.post("/__hold?seconds=0", body: "") == 200)
        vault.advanceSessionClock(by: 3.2)
        let again = try vault.ctl(["--socket", second, "token", "example", "--min-ttl", "1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.text != outputs.first)
    }

    /// `vaultctl login` while vaultd waits for the provider to refuse the old refresh token: the
    /// refusal does not mark the new session, and the waiting caller gets the new session's token.
    @Test func aSignInDuringASlowRejectedRefreshKeepsTheNewSession() throws {
        let vault = VaultHarness()
        let provider = try PythonFixture("slow_rejection_server.py", in: vault)
        let endpoint = provider.base + "/token"
        let old = #"{"access_token":"AT-old","token_type":"Bearer","expires_in":30,"refresh_token":"RT-old-0123456789","token_endpoint":"\#(endpoint)"}"#
        let imported = try vault.ctl(["session", "import", "slow", "alice"], input: Array(old.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")

        let (waiting, output) = try vault.startCtl(["token", "slow", "alice", "--min-ttl", "60"])
        #expect(try Self.waitUntil { try provider.counts("/__count")["refresh"] == 1 }, "the refresh reached the provider")
        let login = try vault.ctl(["login", "oauth2", "--token-endpoint", endpoint, "--username", "alice", "--service", "slow"],
                                  input: Array("password1\n".utf8))
        #expect(login.status == 0, "\(login.stderr)")
        #expect(provider.post("/__release", body: "{}") == 200)

        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0)
        #expect(printed == "AT-login-1\n")
        let session = try Self.stored(vault, "slow", "alice")
        #expect(session["needs_sign_in"] as? Bool == false)
        #expect(session["refresh_token"] as? String == "RT-login-1" && session["access_token"] as? String == "AT-login-1")
        #expect(try vault.ctl("token", "slow", "alice").text == "AT-login-1\n")
        #expect(try provider.counts("/__count")["refresh"] == 1)
    }
}
