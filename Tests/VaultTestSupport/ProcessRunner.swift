import Foundation

/// Runs a command to completion: `input` on stdin, both outputs read at once (so neither pipe
/// fills up and stalls the child), the exit status.
public enum ProcessRunner {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: String
        /// stdout as text.
        public var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// `environment` is the child's whole environment.
    public static func run(_ command: [String], environment: [String: String], input: [UInt8] = []) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // A child may exit before reading all of it (a helper refusing oversized input): EPIPE then,
        // which `write(_:)` would turn into a crash of the test runner.
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try? stdin.fileHandleForWriting.close()
        let group = DispatchGroup()
        nonisolated(unsafe) var out = Data()
        group.enter()
        DispatchQueue.global().async {
            out = stdout.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: Array(out), stderr: String(decoding: err, as: UTF8.self))
    }
}
