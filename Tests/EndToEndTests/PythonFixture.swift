import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VaultCore

/// A test server from Tests/Fixtures/, run with the project's virtualenv Python. It writes
/// `server.json` (at least {"port"}) into its state directory once it listens on 127.0.0.1, and
/// stops when its stdin closes (when this object is released, or on `stop()`).
final class PythonFixture: @unchecked Sendable {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    private let process = Process()
    private let stdin = Pipe()
    let info: [String: Any]
    let base: String

    /// `environment`: variables added to the fixture's (OAUTH_TOKEN_SECONDS for oauth_server.py).
    init(_ script: String, in vault: VaultHarness, environment: [String: String] = [:]) throws {
        let state = vault.root + "/" + script
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: Self.packageRoot + "/.venv/bin/python")
        process.arguments = [Self.packageRoot + "/Tests/Fixtures/" + script, state]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var info: [String: Any] = [:]
        for _ in 0..<3000 {
            if let data = FileManager.default.contents(atPath: state + "/server.json"),
               let parsed = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                info = parsed
                break
            }
            usleep(20_000)
        }
        guard let port = info["port"] as? Int else { throw VaultError.unavailable("\(script) did not start") }
        self.info = info
        base = "http://127.0.0.1:\(port)"
    }

    deinit { stop() }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// GET `path` as a JSON object of counters.
    func counts(_ path: String) throws -> [String: Int] {
        (try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(string: base + path)!)) as? [String: Int]) ?? [:]
    }

    /// POSTs `body` and returns the HTTP status.
    @discardableResult
    func post(_ path: String, body: String, contentType: String = "application/json") -> Int {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status = 0
        URLSession.shared.dataTask(with: request) { _, response, _ in
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        return status
    }
}
