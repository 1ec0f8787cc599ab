import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultClient
import VaultTokenSource
import VaultCore

/// VaultTokenSource against django-oauth-toolkit (Tests/Fixtures/oauth_server.py), whose
/// /api/resource accepts only the newest access token it issued and /api/reject none.
@Suite struct TokenSourceTests {
    /// A new token straight from the server, bypassing vault: the one vault holds is then old.
    func grant(_ server: OAuthServer) -> [String: Any] {
        let form = "grant_type=password&username=alice&password=alice-password&client_id=\(server.clientID)&client_secret=vault-test-client-secret"
        return server.fixture.exchange("/o/token/", body: form, headers: ["Content-Type": "application/x-www-form-urlencoded"]).json
    }

    /// vault holds a session whose access token it believes good for an hour, but the server
    /// has issued a newer one since.
    func staleSession(_ vault: VaultHarness, _ server: OAuthServer) async throws -> VaultClient {
        #expect(try vault.ctl("status").status == 0)  // starts vaultd with the harness's environment
        let client = VaultClient(socketPath: vault.socketPath, autostart: false)
        let first = grant(server)
        let access = try #require(first["access_token"] as? String), refresh = try #require(first["refresh_token"] as? String)
        let json = #"{"access_token":"\#(access)","refresh_token":"\#(refresh)","token_type":"Bearer","expires_in":3600,"token_endpoint":"\#(server.tokenEndpoint)","client_id":"\#(server.clientID)","client_secret":"vault-test-client-secret"}"#
        try await client.importSession(service: "example", account: "alice", json: SecretBytes(utf8: json))
        #expect(grant(server)["access_token"] != nil)
        return client
    }

    final class Counter: @unchecked Sendable {
        var values: [Int] = []
    }

    func counts(_ server: OAuthServer) throws -> (token: Int, resource: Int) {
        let counts = try server.fixture.counts("/count")
        return (counts["token"] ?? -1, counts["resource"] ?? -1)
    }

    @Test func a401TriggersOneRefreshAndOneRetry() async throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        let client = try await staleSession(vault, server)
        let source = VaultTokenSource(service: "example", vault: client, minimumLifetime: 1)
        let stale = try await source.token()

        let before = try counts(server)
        let (_, response) = try await source.data(for: URLRequest(url: URL(string: server.fixture.base + "/api/resource")!))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let after = try counts(server)
        #expect(after.resource == before.resource + 2, "one request, one retry")
        #expect(after.token == before.token + 1, "one refresh")
        let fresh = try await source.token()
        #expect(fresh.accessToken != stale.accessToken, "the refreshed token is the one stored")

        // A server that keeps refusing: still one refresh and one retry, and its 401 is the answer.
        // (Token requests are counted from the first send: the 3-second token may have needed a
        // refresh of its own before it.)
        let tokenRequestsAtSend = Counter()
        let (_, refused) = try await source.send(URLRequest(url: URL(string: server.fixture.base + "/api/reject")!), status: { ($0.1 as? HTTPURLResponse)?.statusCode }) { request in
            tokenRequestsAtSend.values.append(try counts(server).token)
            return try await URLSession.shared.data(for: request)
        }
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)
        #expect(tokenRequestsAtSend.values.count == 2, "one request, one retry")
        #expect(tokenRequestsAtSend.values.last == (tokenRequestsAtSend.values.first ?? 0) + 1, "one refresh between them")
        #expect(try counts(server).resource == after.resource + 2)

        // authorized(_:) only adds the header (with whatever token is current: they live 3 s).
        let request = try await source.authorized(URLRequest(url: URL(string: "http://127.0.0.1:9/")!))
        let header = try #require(request.value(forHTTPHeaderField: "Authorization"))
        #expect(header.hasPrefix("Bearer ") && header.count > 20 && request.url?.port == 9)
    }

    @Test func errorsSayWhatTheUserMustDo() async throws {
        let vault = VaultHarness()
        let server = try OAuthServer(vault)
        let client = try await staleSession(vault, server)
        let url = URLRequest(url: URL(string: server.fixture.base + "/api/resource")!)
        let before = try counts(server)

        await #expect { try await VaultTokenSource(service: "nobody", vault: client).data(for: url) } throws: {
            if case .signInRequired? = $0 as? VaultSessionError { return true }
            return false
        }
        await #expect { try await VaultTokenSource(service: "bad\nname", vault: client).token() } throws: {
            if case .failed(let error)? = $0 as? VaultSessionError { return error.code == .badRequest }
            return false
        }
        // A rejected refresh token: sign in again.
        let record = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "example", "alice").stdout)) as? [String: Any]
        try server.revoke(refreshToken: try #require(record?["refresh_token"] as? String))
        await #expect { try await VaultTokenSource(service: "example", vault: client, minimumLifetime: 7200).token() } throws: {
            if case .signInRequired? = $0 as? VaultSessionError { return true }
            return false
        }
        #expect(try vault.ctl("lock").status == 0)
        await #expect { try await VaultTokenSource(service: "example", vault: client).data(for: url) } throws: {
            if case .locked? = $0 as? VaultSessionError { return true }
            return false
        }
        let nowhere = VaultClient(socketPath: vault.root + "/run/none.sock", autostart: false)
        await #expect { try await VaultTokenSource(service: "example", vault: nowhere).data(for: url) } throws: {
            if case .unavailable? = $0 as? VaultSessionError { return true }
            return false
        }
        #expect(try counts(server).resource == before.resource, "no request is sent without a token")
    }
}
