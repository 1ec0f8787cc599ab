import Foundation
import Testing
import VaultCore
import VaultCrypto
import VaultProtocol
import VaultTestSupport
@testable import VaultDaemon

/// Attack 7 of issue 30 on the file itself, as a program of the user can (it has the file, not
/// the key): each change is named when the log is read, and an untouched log has nothing to say.
@Suite struct AuditTamperingTests {
    let directory = TemporaryDirectory()
    let key = try! SecureRandom.secretBytes(AESGCM.keySize)

    func entry(_ index: Int) -> AuditEntryBody {
        AuditEntryBody(time: "", op: "get", service: "service-\(index)", account: "account", result: "ok", pid: 7, exe: "/usr/bin/tool")
    }

    /// A log with `count` records, and its lines.
    func log(_ count: Int) throws -> (AuditLog, [String]) {
        let log = AuditLog(directory: directory.file("vault"))
        for index in 0..<count { try log.append(entry(index), key: key) }
        return (log, try lines(log))
    }

    func lines(_ log: AuditLog) throws -> [String] {
        try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func write(_ lines: [String], to log: AuditLog) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: log.path, atomically: false, encoding: .utf8)
    }

    func problems(_ log: AuditLog, heads: [String: AuditChain.Head] = [:]) throws -> [String] {
        try log.records(key: key, after: .min, heads: heads).problems
    }

    @Test func eachChangeToTheFileIsNamed() throws {
        let (log, original) = try log(6)
        #expect(try problems(log).isEmpty)
        let sealed = try log.records(key: key, after: .min).records
        #expect(sealed.map(\.seq) == [1, 2, 3, 4, 5, 6] && Set(sealed.compactMap(\.chain)).count == 1 && sealed[0].prev == nil && sealed[1].prev != nil)

        try write(original.enumerated().filter { $0.offset != 2 }.map(\.element), to: log)
        #expect(try problems(log).contains { $0.contains("record 3") || $0.contains("records 3 to 3") }, "deleted")
        try write(original + [original[1]], to: log)
        #expect(try problems(log).contains { $0.contains("record 2 is in the log twice") }, "replayed")
        try write(Array(original.prefix(4)), to: log)
        #expect(try problems(log).contains { $0.contains("records 5 to 6 are missing after") }, "cut")
        try write([original[0], original[2], original[1]] + original.dropFirst(3), to: log)
        #expect(try problems(log).isEmpty, "the order of lines in the file is not the chain's")
        try write(original, to: log)
        #expect(try problems(log).isEmpty)
    }

    @Test func aRollBackIsSeenAfterARestartThroughTheHeadTheVaultKept() throws {
        let (first, early) = try log(3)
        for index in 3..<6 { try first.append(entry(index), key: key) }
        let (chain, head) = first.head
        let kept = try #require(head)
        #expect(kept.seq == 6)
        // A new vaultd (a restart); the file rolled back to the copy of three records.
        let second = AuditLog(directory: directory.file("vault"))
        try write(early, to: second)
        let found = try problems(second, heads: [chain: kept])
        #expect(found.count == 1 && found[0].contains("records 4 to 6 are missing"), "\(found)")
        // The whole file replaced by an empty one.
        try write([], to: second)
        #expect(try problems(second, heads: [chain: kept]).count == 1)
    }
}
