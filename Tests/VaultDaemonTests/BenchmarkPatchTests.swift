import Foundation
import Testing

/// `scripts/bench-promises` measures what each per-request promise costs by applying
/// Benchmarks/promise-costs.patch to a copy of the tree (docs/performance.md, part K): the patch
/// must keep applying as the code it touches changes, or the measurement cannot be repeated.
@Suite struct BenchmarkPatchTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func thePromiseCostsPatchStillApplies() throws {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `git apply --check` changes nothing; outside a repository it reads the files in place.
        git.arguments = ["git", "apply", "--check", "Benchmarks/promise-costs.patch"]
        git.currentDirectoryURL = Self.packageRoot
        let errors = Pipe()
        git.standardError = errors
        try git.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        git.waitUntilExit()
        #expect(git.terminationStatus == 0, "Benchmarks/promise-costs.patch no longer applies; remake it (docs/performance.md, part K): \(message)")
    }

    @Test func theOmissionsExistOnlyInThePatch() throws {
        // What the patch adds must never be on main: a vaultd that can be told to skip its checks.
        let sources = Self.packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        #expect(!files.isEmpty)
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("VAULT_BENCH_OMIT") && !text.contains("BenchOmit"), "\(file.path)")
        }
    }
}
