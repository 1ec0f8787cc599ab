import Foundation
import Testing
import VaultFuzzTargets
import VaultTestSupport

/// Every fuzz target's seed corpus and regressions (inputs a fuzzer once found a bug with),
/// replayed as ordinary tests, oracles included: a regression traps or fails here before any
/// fuzzer runs again. Each target has a corpus and a dictionary; every folder names a target.
@Suite struct FuzzRegressionTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ folder: String, _ target: String) -> [URL] {
        let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTargets.all.map(\.name))
    func corpusAndRegressionsReplay(_ name: String) throws {
        let target = try #require(FuzzTargets.named(name))
        let corpus = Self.inputs("Corpus", name), regressions = Self.inputs("Regressions", name)
        #expect(!corpus.isEmpty, "Fuzz/Corpus/\(name) has no seeds")
        #expect(FileManager.default.fileExists(atPath: Self.fuzz.appendingPathComponent("Dictionaries/\(name).dict").path))
        for file in corpus + regressions {
            let input = try [UInt8](Data(contentsOf: file))
            #expect(input.count <= target.maxLength || file.pathComponents.contains("Regressions"), "\(file.lastPathComponent) is over \(target.maxLength) bytes")
            do {
                try target.run(input)
            } catch {
                Issue.record("\(name)/\(file.lastPathComponent): \(error.description)")
            }
        }
    }

    /// `scripts/fuzz` finds its targets by reading the registry: it lists exactly these (a list
    /// it could not read would fuzz nothing and pass).
    @Test func theFuzzScriptListsEveryTarget() throws {
        let script = Self.fuzz.deletingLastPathComponent().appendingPathComponent("scripts/fuzz").path
        let listed = try ProcessRunner.run(["/bin/bash", script], environment: ProcessInfo.processInfo.environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.text.split(separator: "\n").map(String.init) == FuzzTargets.all.map(\.name))
    }

    @Test func everyFolderNamesATarget() throws {
        for folder in ["Corpus", "Regressions"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: Self.fuzz.appendingPathComponent(folder).path)) ?? []
            for name in names where !name.hasPrefix(".") {
                #expect(FuzzTargets.named(name) != nil, "Fuzz/\(folder)/\(name) names no target")
            }
        }
    }
}
