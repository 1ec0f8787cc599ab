import Foundation
import Testing
import VaultClient
import VaultCore
import VaultTestSupport
import VaultSystem

/// The async library API against a real vaultd (the built binary, in a private directory).
@Suite struct VaultClientTests {
    final class Daemon: @unchecked Sendable {
        let directory = TemporaryDirectory(prefix: "vault-client")
        let root: String
        let process = Process()

        init(arguments: [String] = []) throws {
            root = directory.path
            FileManager.default.createFile(atPath: root + "/pass", contents: Data("client test\n".utf8), attributes: [.posixPermissions: 0o600])
            process.executableURL = URL(fileURLWithPath: BuiltProducts.path("vaultd"))
            process.arguments = ["--socket", root + "/run/vault.sock"] + arguments
            process.environment = ["VAULT_FILE": root + "/data/vault.db", "VAULT_PASSPHRASE_FILE": root + "/pass", "VAULT_KDF_LOG2N": "14", "VAULT_BACKEND": "file", "PATH": "/usr/bin:/bin"]
            // Not the test's own output: a vaultd left running by a test process that died (a
            // sanitizer's report stops it at once) would hold it open, and `swift test` wait on it.
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Until the socket accepts a connection (a loaded machine may take a while).
            for _ in 0..<3000 {
                if let fd = try? UnixSocket.stream() {
                    defer { fd.close() }
                    if (try? UnixSocket.connect(fd, path: root + "/run/vault.sock")) != nil { break }
                }
                usleep(10_000)
            }
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }

        var socket: String { root + "/run/vault.sock" }
    }

    @Test func theAsyncAPICoversEveryOperation() async throws {
        let daemon = try Daemon()
        let vault = VaultClient(socketPath: daemon.socket, autostart: false)
        let stored = try await vault.set(service: "api.example.com", account: "bot", secret: SecretBytes([0, 1, 2]), label: "Bot")
        #expect(stored.label == "Bot")
        let item = try await vault.get(service: "api.example.com", account: "bot")
        #expect(item.secret == SecretBytes([0, 1, 2]))
        #expect(item.metadata.label == "Bot" && item.metadata.kind == .secret && item.metadata.modified >= item.metadata.created)
        try await vault.add(service: "api.example.com", account: "human", secret: SecretBytes(utf8: "pw"))
        #expect(try await vault.list(service: "api.example.com").map(\.account) == ["bot", "human"])
        let status = try await vault.status()
        #expect(status.store == .file && !status.isLocked && status.itemCount == 2)
        try await vault.delete(service: "api.example.com", account: "human")
        try await vault.lock()
        await #expect { try await vault.get(service: "api.example.com", account: "bot") } throws: {
            ($0 as? VaultClientError)?.code == .locked
        }
        try await vault.unlock(passphrase: SecretBytes(utf8: "client test"))
        #expect(try await vault.get(service: "api.example.com", account: "bot").secret == SecretBytes([0, 1, 2]))
    }

    @Test func errorsMirrorTheProtocolCodes() async throws {
        let daemon = try Daemon()
        let vault = VaultClient(socketPath: daemon.socket, autostart: false)
        await #expect(throws: VaultClientError.self) { try await vault.get(service: "none", account: "none") }
        do {
            _ = try await vault.get(service: "none", account: "none")
        } catch let error as VaultClientError {
            #expect(error.code == .notFound)
        }
        try await vault.add(service: "s", account: "a", secret: SecretBytes(utf8: "1"))
        await #expect { try await vault.add(service: "s", account: "a", secret: SecretBytes(utf8: "2")) } throws: {
            ($0 as? VaultClientError)?.code == .duplicate
        }
        await #expect { try await vault.unlock(passphrase: SecretBytes(utf8: "wrong")) } throws: {
            ($0 as? VaultClientError)?.code == .wrongPassphrase
        }
        let nowhere = VaultClient(socketPath: daemon.root + "/no/such.sock", autostart: false)
        await #expect { try await nowhere.status() } throws: { ($0 as? VaultClientError)?.code == .unavailable }
    }

    @Test func aConnectionClosedForIdlenessIsReplacedTransparently() async throws {
        let daemon = try Daemon(arguments: ["--idle-timeout", "1s"])
        let vault = VaultClient(socketPath: daemon.socket, autostart: false)
        try await vault.set(service: "idle", account: "a", secret: SecretBytes(utf8: "x"))
        try await Task.sleep(for: .milliseconds(1600))
        #expect(try await vault.get(service: "idle", account: "a").secret == SecretBytes(utf8: "x"))
    }

    @Test func tokensOfImportedSessionsAreAvailableToPrograms() async throws {
        let daemon = try Daemon()
        let vault = VaultClient(socketPath: daemon.socket, autostart: false)
        let session = #"{"access_token":"library-token","token_type":"Bearer","token_endpoint":"https://auth.example.com/token","client_id":"x"}"#
        try await vault.importSession(service: "lib", account: "me", json: SecretBytes(utf8: session))
        let token = try await vault.token(service: "lib")
        #expect(token.accessToken == "library-token" && token.account == "me" && token.expiresAt == nil)
        await #expect { try await vault.token(service: "nothing") } throws: { ($0 as? VaultClientError)?.code == .notFound }
    }

    @Test func concurrentCallsFromManyTasksAreAllAnswered() async throws {
        let daemon = try Daemon()
        let vault = VaultClient(socketPath: daemon.socket, autostart: false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await vault.set(service: "tasks", account: "t\(index)", secret: SecretBytes(utf8: "v\(index)"))
                    let secret = try await vault.get(service: "tasks", account: "t\(index)").secret
                    #expect(secret == SecretBytes(utf8: "v\(index)"))
                }
            }
            try await group.waitForAll()
        }
        #expect(try await vault.list(service: "tasks").count == 40)
    }
}
