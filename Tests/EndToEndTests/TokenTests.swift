import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore

/// django-oauth-toolkit on 127.0.0.1 (Tests/Fixtures/oauth_server.py): 3-second access tokens,
/// refresh-token rotation on. Stops when released.
final class OAuthServer: @unchecked Sendable {
    let fixture: PythonFixture
    let clientID: String
    let clientSecretFile: String

    /// `tokenSeconds`: the access tokens' lifetime, when not the fixture's 3 seconds.
    init(_ vault: VaultHarness, tokenSeconds: Int? = nil) throws {
        fixture = try PythonFixture("oauth_server.py", in: vault, environment: tokenSeconds.map { ["OAUTH_TOKEN_SECONDS": String($0)] } ?? [:])
        clientID = fixture.info["client_id"] as? String ?? ""
        clientSecretFile = vault.root + "/oauth-client-secret"
        FileManager.default.createFile(atPath: clientSecretFile, contents: Data("vault-test-client-secret\n".utf8), attributes: [.posixPermissions: 0o600])
    }

    func stop() { fixture.stop() }

    var tokenEndpoint: String { fixture.base + "/o/token/" }

    /// Requests that reached the token endpoint so far.
    func tokenRequests() throws -> Int { try fixture.counts("/count")["token"] ?? -1 }

    func revoke(refreshToken: String) throws {
        let status = fixture.post("/o/revoke_token/", body: "token=\(refreshToken)&token_type_hint=refresh_token&client_id=\(clientID)&client_secret=vault-test-client-secret",
                                  contentType: "application/x-www-form-urlencoded")
        guard status == 200 else { throw VaultError.unavailable("revocation answered \(status)") }
    }

    func login(_ vault: VaultHarness, service: String = "example") throws -> VaultHarness.Result {
        try vault.ctl(["login", "oauth2", "--token-endpoint", tokenEndpoint, "--client-id", clientID,
                       "--client-secret-file", clientSecretFile, "--username", "alice", "--service", service],
                      input: Array("alice-password\n".utf8))
    }
}

@Suite struct TokenTests {
    func storedSession(_ vault: VaultHarness, _ service: String = "example") throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", service, "alice").stdout)) as? [String: Any] ?? [:]
    }

    @Test func signInRefreshAfterExpiryAndTheRotatedRefreshTokenIsStored() throws {
        let vault = VaultHarness()
        // Tokens live 8 s: long enough that a loaded machine still finds this one fresh below.
        let server = try OAuthServer(vault, tokenSeconds: 8)
        let login = try server.login(vault)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(!login.stderr.contains("alice-password"))
        let first = try storedSession(vault)
        let firstRefresh = first["refresh_token"] as? String
        #expect(first["needs_sign_in"] as? Bool == false && firstRefresh != nil)

        // Fresh: served from the vault, no request to the server.
        let before = try server.tokenRequests()
        let cached = try vault.ctl("token", "example", "--min-ttl", "1")
        #expect(cached.status == 0 && cached.text == (first["access_token"] as? String ?? "") + "\n")
        #expect(try server.tokenRequests() == before)

        let listed = try vault.ctl("list", "--json").text
        #expect(listed.contains(#""kind":"session""#))
        #expect(listed.contains(#""session":{"expires_at":""#) && listed.contains(#""provider":"oauth2","user":"alice"}"#), "\(listed)")
        #expect(!listed.contains(firstRefresh ?? "@@") && !listed.contains(first["access_token"] as? String ?? "@@"), "list must not show tokens")
        #expect(try vault.ctl("list").text.contains("oauth2, alice, expires "))

        // Within --min-ttl of its expiry: refreshed.
        let expiresAt = first["expires_at"] as? Double ?? 0
        while Date().timeIntervalSince1970 < expiresAt - 0.9 { usleep(50_000) }
        let refreshed = try vault.ctl("token", "example", "--min-ttl", "1")
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        #expect(refreshed.text != cached.text)
        #expect(try server.tokenRequests() == before + 1)
        let second = try storedSession(vault)
        #expect(second["access_token"] as? String == refreshed.text.trimmingCharacters(in: .newlines))
        #expect(second["refresh_token"] as? String != firstRefresh, "the rotated refresh token must be stored")

        // The formats other tools expect.
        let json = try JSONSerialization.jsonObject(with: Data(try vault.ctl("token", "example", "alice", "--min-ttl", "1", "--format", "json").stdout)) as? [String: Any]
        #expect(json?["token_type"] as? String == "Bearer" && (json?["expires_at"] as? String)?.hasSuffix("Z") == true)
        #expect(try vault.ctl("token", "example", "--min-ttl", "1", "--format", "header").text.hasPrefix("Authorization: Bearer "))
        #expect(try vault.ctl("token", "example", "--min-ttl", "1", "--format", "env", "--env-name", "API_TOKEN").text.hasPrefix("export API_TOKEN="))
        let credential = try JSONSerialization.jsonObject(with: Data(try vault.ctl("token", "example", "--min-ttl", "1", "--format", "exec-credential").stdout)) as? [String: Any]
        #expect(credential?["kind"] as? String == "ExecCredential")
        #expect(((credential?["status"] as? [String: Any])?["expirationTimestamp"] as? String)?.hasSuffix("Z") == true)
        #expect(try vault.ctl("token", "example", "--format", "yaml").status == 2)
    }

    @Test func aRevokedRefreshTokenMeansSignInAgainWithExitFourAndTheSessionIsKept() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)
        try server.revoke(refreshToken: try storedSession(vault)["refresh_token"] as? String ?? "")
        vault.advanceSessionClock(by: 3.2)
        let result = try vault.ctl("token", "example", "--min-ttl", "1")
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("needs a new sign-in") && result.stderr.contains("vaultctl login oauth2"))
        #expect(try storedSession(vault)["needs_sign_in"] as? Bool == true)
        #expect(try vault.ctl("status").text.contains("session: example (alice): oauth2, alice, NEEDS SIGN-IN"))
        // No retry storm: a session marked for sign-in answers without asking the server.
        let requests = try server.tokenRequests()
        #expect(try vault.ctl("token", "example").status == 4)
        #expect(try server.tokenRequests() == requests)
        // Signing in again clears it.
        #expect(try server.login(vault).status == 0)
        #expect(try vault.ctl("token", "example", "--min-ttl", "1").status == 0)
    }

    /// logout revokes the refresh token on the server (RFC 7009) before forgetting the session.
    @Test func logoutRevokesTheRefreshTokenOnTheServer() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        let login = try vault.ctl(["login", "oauth2", "--token-endpoint", server.tokenEndpoint, "--client-id", server.clientID,
                                   "--client-secret-file", server.clientSecretFile, "--username", "alice", "--service", "example",
                                   "--revocation-endpoint", server.fixture.base + "/o/revoke_token/"], input: Array("alice-password\n".utf8))
        #expect(login.status == 0, "\(login.stderr)")
        let refreshToken = try storedSession(vault)["refresh_token"] as? String ?? ""
        let logout = try vault.ctl("logout", "example")
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try vault.ctl("get", "example", "alice").status == 3)
        let reuse = server.fixture.post("/o/token/", body: "grant_type=refresh_token&refresh_token=\(refreshToken)&client_id=\(server.clientID)&client_secret=vault-test-client-secret",
                                        contentType: "application/x-www-form-urlencoded")
        #expect(reuse == 400, "the revoked refresh token must no longer work")
    }

    @Test func twentyConcurrentCallsOnAnExpiredSessionMakeOneRefresh() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)
        vault.advanceSessionClock(by: 3.2)
        let before = try server.tokenRequests()
        let processes = try (0..<20).map { _ in try vault.startCtl(["token", "example", "--min-ttl", "1"]) }
        var outputs = Set<String>()
        for (process, output) in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            outputs.insert(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        #expect(try server.tokenRequests() == before + 1, "exactly one refresh request")
        #expect(outputs.count == 1 && outputs.first?.isEmpty == false, "all twenty print the same token")
    }

    /// Inside the 60 s margin but still valid: the refresh fails, the current token is served.
    /// (Tokens live 30 s here, so a loaded machine cannot let this one expire before it is asked for.)
    @Test func anUnreachableServerServesAStillValidToken() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault, tokenSeconds: 30)
        #expect(try server.login(vault).status == 0)
        let stored = try storedSession(vault)
        server.stop()
        let served = try vault.ctl("token", "example")
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.text == (stored["access_token"] as? String ?? "") + "\n")
        #expect(try storedSession(vault)["refresh_token"] as? String == stored["refresh_token"] as? String)
    }

    /// Once the token has expired, an unreachable server is a clear error and the session is kept.
    @Test func anUnreachableServerFailsClearlyOnceTheTokenHasExpired() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)
        let stored = try storedSession(vault)
        server.stop()
        vault.advanceSessionClock(by: 3.2)  // the fixture's tokens live 3 s
        let failed = try vault.ctl("token", "example", "--min-ttl", "1")
        #expect(failed.status == 5, "\(failed.stderr)")
        #expect(failed.stderr.contains("could not refresh") && failed.stderr.contains("unchanged"))
        let after = try storedSession(vault)
        #expect(after["refresh_token"] as? String == stored["refresh_token"] as? String)
        #expect(after["needs_sign_in"] as? Bool == false)
        #expect(!failed.stderr.contains(stored["access_token"] as? String ?? "@@"))
    }

    /// Tokens as real OAuth client libraries keep them (requests-oauthlib: `scope` a list,
    /// `expires_at` a float; authlib: its own fields), signed in against the real server with a
    /// public client: each imports as it was saved, is served, and refreshes.
    @Test(arguments: ["requests-oauthlib", "authlib"])
    func tokensSavedByOAuthClientLibrariesImportAndRefresh(_ library: String) throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        let publicClient = server.fixture.info["public_client_id"] as? String ?? ""
        let signIn = try vault.run([PythonFixture.packageRoot + "/.venv/bin/python", PythonFixture.packageRoot + "/Tests/Fixtures/oauth_client_token.py", library,
                                    server.tokenEndpoint, publicClient, "alice"], input: Array("alice-password\n".utf8))
        #expect(signIn.status == 0, "\(signIn.stderr)")
        let saved = try JSONSerialization.jsonObject(with: Data(signIn.stdout)) as? [String: Any] ?? [:]
        let imported = try vault.ctl(["session", "import", "api", "alice", "--token-endpoint", server.tokenEndpoint, "--client-id", publicClient],
                                     input: signIn.stdout)
        #expect(imported.status == 0, "\(library): \(imported.stderr)")
        #expect(try vault.ctl("token", "api", "--min-ttl", "0").text == "\(saved["access_token"] as? String ?? "?")\n")
        let before = try server.tokenRequests()
        vault.advanceSessionClock(by: 3.2)
        let refreshed = try vault.ctl("token", "api", "--min-ttl", "1")
        #expect(refreshed.status == 0, "\(library): \(refreshed.stderr)")
        #expect(refreshed.text != "\(saved["access_token"] as? String ?? "?")\n")
        #expect(try server.tokenRequests() == before + 1)
    }

    @Test func aSessionObtainedElsewhereCanBeImported() throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        // A token response as any OAuth client gets it, plus where to refresh it.
        let response = #"{"access_token":"imported-access","token_type":"Bearer","expires_in":"3","refresh_token":"bogus-refresh","token_endpoint":"\#(server.tokenEndpoint)","client_id":"\#(server.clientID)","client_secret":"vault-test-client-secret"}"#
        #expect(try vault.ctl(["session", "import", "imported", "bob"], input: Array(response.utf8)).status == 0)
        // Fresh for 3 s (long enough for a loaded machine to ask once): served as imported.
        #expect(try vault.ctl("token", "imported", "--min-ttl", "0").text == "imported-access\n")
        // Its refresh token is not the server's: once expired, the user must sign in again
        // (invalid_grant; without the client secret it would be invalid_client, which is no sign-in).
        // Until then every answer is the imported token.
        var expired = try vault.ctl("token", "imported", "--min-ttl", "0")
        let deadline = Date().addingTimeInterval(30)
        while expired.status == 0 && Date() < deadline {
            #expect(expired.text == "imported-access\n")
            usleep(250_000)
            expired = try vault.ctl("token", "imported", "--min-ttl", "0")
        }
        #expect(expired.status == 4, "\(expired.status): \(expired.stderr)")
        let bad = try vault.ctl(["session", "import", "imported", "carol"], input: Array(#"{"access_token":"x"}"#.utf8))
        #expect(bad.status == 2 && bad.stderr.contains("pass --token-endpoint URL"), "\(bad.stderr)")
        let insecure = try vault.ctl(["session", "import", "imported", "carol"], input: Array(#"{"access_token":"x","token_endpoint":"http://example.com/token"}"#.utf8))
        #expect(insecure.status == 2 && insecure.stderr.contains("https"))
        #expect(try vault.ctl("token", "nothing-here").status == 3)
        #expect(try vault.ctl("token", "imported", "bob", "--min-ttl", "soon").status == 2)
    }
}
