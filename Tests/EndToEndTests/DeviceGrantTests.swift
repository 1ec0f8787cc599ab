import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore

/// RFC 8628 against Tests/Fixtures/device_server.py: the test plays the person approving the code.
@Suite struct DeviceGrantTests {
    final class DeviceServer: @unchecked Sendable {
        let process = Process()
        private let stdin = Pipe()
        let base: String

        init(_ vault: VaultHarness) throws {
            let state = vault.root + "/device"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: SecretServiceTests.packageRoot + "/.venv/bin/python")
            process.arguments = [SecretServiceTests.packageRoot + "/Tests/Fixtures/device_server.py", state]
            process.standardInput = stdin
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var port = 0
            for _ in 0..<3000 {
                if let data = FileManager.default.contents(atPath: state + "/server.json"),
                   let info = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let found = info["port"] as? Int { port = found; break }
                usleep(10_000)
            }
            base = "http://127.0.0.1:\(port)"
        }

        deinit {
            try? stdin.fileHandleForWriting.close()
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }

        func decide(_ path: String, userCode: String) {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"user_code":"\#(userCode)"}"#.utf8)
            let done = DispatchSemaphore(value: 0)
            URLSession.shared.dataTask(with: request) { _, _, _ in done.signal() }.resume()
            done.wait()
        }
    }

    /// Starts `vaultctl login oauth2 --device`, waits for the code it shows, then `decide`s.
    func signIn(_ vault: VaultHarness, _ server: DeviceServer, decision: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: VaultHarness.vaultctl)
        process.arguments = ["login", "oauth2", "--device", "--device-endpoint", server.base + "/device", "--token-endpoint", server.base + "/token",
                             "--client-id", "device-client", "--service", "tv", "--account", "living-room"]
        process.environment = vault.environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var shown = ""
        while !shown.contains("enter the code: ") || !shown.hasSuffix("\n") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            shown += String(decoding: chunk, as: UTF8.self)
        }
        let userCode = shown.components(separatedBy: "enter the code: ").last?.split(separator: "\n").first.map(String.init) ?? ""
        usleep(1_500_000)  // a person takes a moment: the client keeps polling meanwhile
        server.decide(decision, userCode: userCode)
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, shown + rest)
    }

    @Test func aCodeApprovedOnAnotherDeviceSignsIn() throws {
        let vault = VaultHarness()
        let server = try DeviceServer(vault)
        let (status, output) = try signIn(vault, server, decision: "/__approve")
        #expect(status == 0, "\(output)")
        #expect(output.contains("http://127.0.0.1/activate"))
        let token = try vault.ctl("token", "tv")
        #expect(token.status == 0 && token.text.hasPrefix("dev-"))
        let counts = (try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(string: server.base + "/__count")!)) as? [String: Int]) ?? [:]
        #expect((counts["poll"] ?? 0) >= 2, "it polled while waiting")
        #expect(counts["slow_down"] == 0, "it respected the interval")
    }

    @Test func aDeniedCodeIsAClearError() throws {
        let vault = VaultHarness()
        let server = try DeviceServer(vault)
        let (status, output) = try signIn(vault, server, decision: "/__deny")
        #expect(status == 1 && output.contains("denied"), "\(output)")
        #expect(try vault.ctl("get", "tv", "living-room").status == 3)
    }
}
