import Foundation
import Testing
import VaultClient
import VaultCore

/// VaultAuthStorage shared by two processes of one program (Tests/Helpers/vault-auth-storage-tool)
/// while vaultd refreshes the session against the local Supabase Auth (2-second access tokens,
/// refresh-token rotation with a 2-second reuse interval): supabase/supabase-swift#703 is that
/// processes refreshing for themselves get "refresh token already used" and lose the session.
@Suite struct SupabaseStorageTests {
    /// A session from the server's password grant, as supabase-swift's JSONEncoder writes it.
    func swiftSession(_ server: SupabaseServer) throws -> String {
        let answer = server.fixture.exchange(
            "/auth/v1/token?grant_type=password", body: #"{"email":"alice@example.com","password":"alice-password"}"#,
            headers: ["apikey": server.anonKey, "Content-Type": "application/json"])
        let access = try #require(answer.json["access_token"] as? String), refresh = try #require(answer.json["refresh_token"] as? String)
        let expiresAt = try #require(answer.json["expires_at"] as? Int)
        return """
            {"accessToken":"\(access)","tokenType":"bearer","expiresIn":2,"expiresAt":\(expiresAt),"refreshToken":"\(refresh)",\
            "user":{"id":"user-alice","email":"alice@example.com","aud":"authenticated","appMetadata":{"provider":"email"},\
            "userMetadata":{},"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-02T00:00:00Z"}}
            """
    }

    @Test func twoProcessesShareTheSessionWhileVaultdRefreshesIt() throws {
        let vault = VaultHarness()
        let server = try SupabaseServer(vault)
        #expect(try vault.ctl("status").status == 0)  // starts vaultd with the harness's environment
        let storage = VaultAuthStorage(name: "com.example.notes", supabaseURL: server.url, anonKey: server.anonKey, socketPath: vault.socketPath, autostart: false)
        try storage.store(key: "supabase.auth.token", value: Data(try swiftSession(server).utf8))
        let listed = try vault.ctl("list", "com.example.notes").text
        #expect(listed.contains("\tsession\t") && listed.contains("supabase, alice@example.com"), "\(listed)")

        var processes: [(Process, Pipe, Pipe)] = []
        for _ in 0..<2 {
            let process = Process(), output = Pipe(), errors = Pipe()
            process.executableURL = URL(fileURLWithPath: BuiltProducts.path("vault-auth-storage-tool"))
            process.arguments = ["com.example.notes", server.url, server.anonKey, "5", "1"]
            process.environment = vault.environment
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            processes.append((process, output, errors))
        }
        for (process, output, errors) in processes {
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(complaint)")
            #expect(!complaint.contains("already used") && !complaint.contains("already_used"))
            let summary = (try? JSONSerialization.jsonObject(with: Data(printed.utf8))) as? [String: Int]
            #expect((summary?["tokens"] ?? 0) >= 2, "each process saw the session refreshed: \(printed)")
        }
        // vaultd refreshed (more than once: 5 s of 2-second tokens), and the session is still good.
        #expect((try server.counts()["refresh"] ?? 0) >= 2)
        #expect(!(try vault.ctl("list", "com.example.notes").text.contains("NEEDS SIGN-IN")))
        #expect(try vault.ctl("token", "com.example.notes", "supabase.auth.token", "--min-ttl", "0").status == 0)
    }
}
