import Foundation
import Synchronization
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultStores
import VaultTestSupport
import VaultSystem

/// The access rules and the audit key are cached between requests (`StoreCache`): each way they
/// can change must make the very next request see the change. In-process requests come from no
/// socket, so their caller is unknown and any `allow` rule refuses them.
@Suite struct AccessCacheTests {
    let directory = TemporaryDirectory(prefix: "vault-access-cache")
    let log = RecordingLogHandler()
    typealias Concurrent = ConcurrentStoreTests

    var vaultFile: String { directory.file("data/vault.db") }
    var auditLog: String { directory.file("data/audit.log") }

    func dispatcher(_ store: ActiveStore) -> RequestDispatcher {
        var configuration = DaemonConfiguration(socketPath: directory.file("vault.sock"), vaultFilePath: vaultFile, environment: [:])
        configuration.kdfParameters = .minimum
        return RequestDispatcher(store: store, catalog: StoreCatalog(configuration: configuration), socketPath: configuration.socketPath, logger: Logger(handler: log))
    }

    func fileStore() throws -> EncryptedFileStore {
        let file = EncryptedFileStore(path: vaultFile, options: .init(kdfParameters: .minimum))
        try file.unlock(passphrase: SecretBytes(utf8: "a passphrase for the test"))
        return file
    }

    func auditLines() -> Int {
        ((try? String(contentsOfFile: auditLog, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    func allow(_ program: String) -> String { #"{"op":"allow","service":"s","account":"a","path":"\#(program)"}"# }
    func disallow(_ program: String) -> String { #"{"op":"disallow","service":"s","account":"a","path":"\#(program)"}"# }

    @Test func aRuleWrittenHereAppliesToTheNextRequest() throws {
        let dispatcher = dispatcher(ActiveStore(store: InMemoryStore(), reason: "a test"))
        #expect(Concurrent.answer(dispatcher, Concurrent.set("s", "a", "x")).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
        #expect(Concurrent.answer(dispatcher, allow("/bin/true")).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).code == "denied")
        #expect(Concurrent.answer(dispatcher, disallow("/bin/true")).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
    }

    @Test func aRuleWrittenByAnotherProcessOnTheSameFileAppliesToTheNextRequest() throws {
        let dispatcher = dispatcher(ActiveStore(store: try fileStore(), reason: "a test"))
        #expect(Concurrent.answer(dispatcher, Concurrent.set("s", "a", "x")).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
        // Another vaultd's store on the same file writes a rule.
        let other = try fileStore()
        var rules = try AccessRules.load(from: other)
        rules.update(try ItemKey(service: "s", account: "a")) { $0.allow.append(AccessRules.Program(path: "/bin/true", sha256: "00", added: "")) }
        try rules.save(to: other)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).code == "denied")
        try AccessRules().save(to: other)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
    }

    /// A request looks at the vault file once (its `StoreReadView`), and its rules, item and audit
    /// key come from that one view: every write of another process, appended or compacted, an
    /// item or a rule, is seen by the very next request.
    @Test func everyWriteOfAnotherProcessIsSeenByTheNextRequest() throws {
        let dispatcher = dispatcher(ActiveStore(store: try fileStore(), reason: "a test"))
        #expect(Concurrent.answer(dispatcher, Concurrent.set("s", "a", "x")).code == nil)
        let other = EncryptedFileStore(path: vaultFile, options: .init(kdfParameters: .minimum, compactionFloor: 0))
        try other.unlock(passphrase: SecretBytes(utf8: "a passphrase for the test"))
        let item = try ItemKey(service: "s", account: "a")
        for step in 0..<12 {
            try other.set(item, secret: SecretBytes(utf8: "v\(step)"), changes: ItemChanges())
            #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "v\(step)", "step \(step)")
            #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "v\(step)", "step \(step), again")
            if step % 4 == 3 {
                // A rule and the item in one write each, then both undone: each seen at once.
                var rules = try AccessRules.load(from: other)
                rules.update(item) { $0.allow = [AccessRules.Program(path: "/bin/true", sha256: "00", added: "")] }
                try rules.save(to: other)
                #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).code == "denied", "step \(step)")
                try AccessRules().save(to: other)
            }
            if step == 6 { try other.changePassphrase(current: SecretBytes(utf8: "a passphrase for the test"), new: SecretBytes(utf8: "a passphrase for the test"), rekey: false) }
        }
    }

    @Test func nothingIsAuditedUnderACachedKeyOnceLocked() throws {
        // The key exists before the first record, so the first record caches it.
        let memory = InMemoryStore()
        _ = try AuditKey.get(in: memory, creating: true)
        let store = ActiveStore(store: memory, reason: "a test")
        let dispatcher = dispatcher(store)
        #expect(Concurrent.answer(dispatcher, Concurrent.set("s", "a", "x")).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
        let before = auditLines()
        #expect(before == 2)
        #expect(Concurrent.answer(dispatcher, #"{"op":"lock"}"#).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).code == "locked")
        #expect(auditLines() == before)
        // Auto-lock too.
        #expect(Concurrent.answer(dispatcher, #"{"op":"unlock"}"#).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
        store.lockIfIdle(for: 0, logger: Logger(handler: log))
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).code == "locked")
        #expect(auditLines() == before + 1)
    }

    @Test func anAuditKeyReplacedByAnotherProcessSealsTheNextRecord() throws {
        let dispatcher = dispatcher(ActiveStore(store: try fileStore(), reason: "a test"))
        #expect(Concurrent.answer(dispatcher, Concurrent.set("s", "a", "x")).code == nil)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
        // Another process removes the key: the next access makes a new one, and its record is
        // readable under it (a record sealed under the cached old key would not be).
        try fileStore().delete(.auditKey)
        #expect(Concurrent.answer(dispatcher, Concurrent.get("s", "a")).secret == "x")
        var line = MessageCodec.encode(dispatcher.handle(line: Array(#"{"op":"audit"}"#.utf8)))
        line.removeLast()
        let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        let records = (object?["result"] as? [String: Any])?["audit"] as? [[String: Any]] ?? []
        #expect(records.map { $0["op"] as? String } == ["get"], "\(object ?? [:])")
    }

    @Test func everyExclusiveSectionEmptiesTheCaches() throws {
        let memory = InMemoryStore()
        let store = ActiveStore(store: memory, reason: "a test")
        let cache = StoreCache<Int>()
        store.register(cache)
        let loads = AdaptiveLock(0)
        func value() throws -> Int {
            try store.read { active in try cache.value(in: active) { _ in loads.withLock { $0 += 1; return $0 } } }
        }
        #expect(try value() == 1)
        #expect(try value() == 1)
        try store.perform { _ in }
        #expect(try value() == 2)
        store.setLockReason(nil)
        #expect(try value() == 3)
        _ = try store.migrate(to: InMemoryStore(), reason: "moved", progress: { _ in })
        #expect(try value() == 4)
        store.lockIfIdle(for: 0, logger: Logger(handler: log))
        #expect(try value() == 5)
        #expect(try value() == 5)
    }
}
