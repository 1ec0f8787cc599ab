import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore

/// Tests/Fixtures/firebase_server.py: emulator paths, 2-second ID tokens, string expiresIn.
final class FirebaseServer: @unchecked Sendable {
    let process = Process()
    private let stdin = Pipe()
    let url: String
    let apiKey: String

    init(_ vault: VaultHarness) throws {
        let state = vault.root + "/firebase"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: SecretServiceTests.packageRoot + "/.venv/bin/python")
        process.arguments = [SecretServiceTests.packageRoot + "/Tests/Fixtures/firebase_server.py", state]
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var info: [String: Any] = [:]
        for _ in 0..<3000 {
            if let data = FileManager.default.contents(atPath: state + "/server.json"),
               let parsed = try? JSONSerialization.jsonObject(with: data) as? [String: Any] { info = parsed; break }
            usleep(20_000)
        }
        guard let port = info["port"] as? Int, let key = info["api_key"] as? String else {
            throw VaultError.unavailable("the Firebase test server did not start")
        }
        url = "http://127.0.0.1:\(port)"
        apiKey = key
    }

    deinit {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    func counts() throws -> [String: Int] {
        (try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(string: url + "/__count")!)) as? [String: Int]) ?? [:]
    }

    func disable(_ email: String) {
        var request = URLRequest(url: URL(string: url + "/__disable")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"email":"\#(email)"}"#.utf8)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, _, _ in done.signal() }.resume()
        done.wait()
    }

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
        usleep(2_200_000)
        let refreshed = try vault.ctl("token", "fb", "alice@example.com", "--min-ttl", "1")
        #expect(refreshed.status == 0 && refreshed.text != first.text, "\(refreshed.stderr)")
        #expect(try server.counts()["refresh"] == 1)
        let listed = try vault.ctl("list", "fb", "--json").text
        #expect(listed.contains(#""provider":"firebase","user":"alice@example.com""#), "\(listed)")

        let reset = try vault.ctl(["reset-password", "firebase", "--url", server.url, "--api-key", server.apiKey, "--email", "alice@example.com"])
        let resets = try server.counts()["sendOobCode"]
        #expect(reset.status == 0 && resets == 1, "\(reset.stderr)")

        server.disable("alice@example.com")
        usleep(2_200_000)
        let disabled = try vault.ctl("token", "fb", "alice@example.com", "--min-ttl", "1")
        #expect(disabled.status == 4 && disabled.stderr.contains("USER_DISABLED"), "\(disabled.stderr)")
        // Firebase has no client sign-out endpoint: logout forgets the session here.
        #expect(try vault.ctl("logout", "fb", "alice@example.com").status == 0)
        #expect(try vault.ctl("get", "fb", "alice@example.com").status == 3)
    }
}
