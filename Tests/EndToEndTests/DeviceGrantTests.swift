import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore

/// RFC 8628 against Tests/Fixtures/device_server.py: the test plays the person approving the code.
@Suite struct DeviceGrantTests {
    final class DeviceServer: @unchecked Sendable {
        let fixture: PythonFixture
        var base: String { fixture.base }

        init(_ vault: VaultHarness) throws {
            fixture = try PythonFixture("device_server.py", in: vault)
        }

        func decide(_ path: String, userCode: String) { fixture.post(path, body: #"{"user_code":"\#(userCode)"}"#) }
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
        let counts = try server.fixture.counts("/__count")
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
