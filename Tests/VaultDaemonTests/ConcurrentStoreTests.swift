import Foundation
import Synchronization
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultStores
import VaultTestSupport
import VaultSystem

/// ActiveStore's readers-writer scheme through the dispatcher, with real threads: reads run side
/// by side, writes alone, and every answer is one a serial order would give, also while the
/// store is migrated or locked.
@Suite struct ConcurrentStoreTests {
    let directory = TemporaryDirectory(prefix: "vault-concurrency")
    let log = RecordingLogHandler()

    func dispatcher(_ store: ActiveStore) -> RequestDispatcher {
        var configuration = DaemonConfiguration(socketPath: directory.file("vault.sock"), vaultFilePath: directory.file("data/vault.db"), environment: [:])
        configuration.kdfParameters = .minimum
        return RequestDispatcher(store: store, catalog: StoreCatalog(configuration: configuration), socketPath: configuration.socketPath, logger: Logger(handler: log))
    }

    /// The answer to one JSON line: the secret of a `get`, or the error code.
    static func answer(_ dispatcher: RequestDispatcher, _ json: String) -> (secret: String?, code: String?) {
        var line = MessageCodec.encode(dispatcher.handle(line: Array(json.utf8)))
        line.removeLast()
        let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
        let item = (object?["result"] as? [String: Any])?["item"] as? [String: Any]
        return (item?["secret"] as? String, (object?["error"] as? [String: Any])?["code"] as? String)
    }

    static func get(_ service: String, _ account: String) -> String { #"{"op":"get","service":"\#(service)","account":"\#(account)"}"# }
    static func set(_ service: String, _ account: String, _ secret: String) -> String {
        #"{"op":"set","service":"\#(service)","account":"\#(account)","secret":"\#(secret)"}"#
    }

    /// Runs every body on a thread of its own (blocking calls: not the cooperative pool), all at once.
    static func onThreads(_ bodies: [@Sendable () -> Void]) {
        let group = DispatchGroup()
        for body in bodies {
            group.enter()
            Thread.detachNewThread { body(); group.leave() }
        }
        group.wait()
    }

    /// `count` readers, each getting items k0…k(keys-1) of `service` in turn `rounds` times; an
    /// answer other than the item's own secret ("kN-…", as the writers write it) goes to `record`.
    static func readers(
        _ count: Int, rounds: Int, of service: String, keys: Int, _ dispatcher: RequestDispatcher, record: @escaping @Sendable (String) -> Void
    ) -> [@Sendable () -> Void] {
        (0..<count).map { reader in {
            for round in 0..<rounds {
                let key = "k\((reader + round) % keys)"
                let (secret, code) = Self.answer(dispatcher, Self.get(service, key))
                if code != nil || !(secret ?? "").hasPrefix(key + "-") { record("\(key): \(secret ?? code ?? "nothing")") }
            }
        } }
    }

    @Test func readsRunSideBySide() throws {
        let probe = ProbeStore()
        let dispatcher = dispatcher(ActiveStore(store: probe, reason: "a test"))
        #expect(Self.answer(dispatcher, Self.set("s", "rendezvous", "x")).code == nil)
        let answers = AdaptiveLock<[String?]>([])
        // Each get of "rendezvous" waits (at most 10 s) until the other is inside the store too:
        // with reads taking turns, neither meets the other.
        Self.onThreads((0..<2).map { _ in {
            let secret = Self.answer(dispatcher, Self.get("s", "rendezvous")).secret
            answers.withLock { $0.append(secret) }
        } })
        #expect(answers.withLock { $0 } == ["x", "x"])
        #expect(probe.readersMet)
        #expect(probe.violations == 0)
    }

    @Test func parallelReadersAndWritersGiveConsistentAnswers() throws {
        let probe = ProbeStore()
        let dispatcher = dispatcher(ActiveStore(store: probe, reason: "a test"))
        for key in 0..<4 { #expect(Self.answer(dispatcher, Self.set("s", "k\(key)", "k\(key)-0")).code == nil) }
        let wrong = AdaptiveLock<[String]>([])
        let readers = Self.readers(8, rounds: 300, of: "s", keys: 4, dispatcher) { problem in wrong.withLock { $0.append(problem) } }
        let writers: [@Sendable () -> Void] = (0..<2).map { writer in {
            for round in 1...100 {
                let key = "k\(round % 4)"
                if let code = Self.answer(dispatcher, Self.set("s", key, "\(key)-\(writer)-\(round)")).code { wrong.withLock { $0.append("set \(key): \(code)") } }
            }
        } }
        Self.onThreads(readers + writers)
        #expect(wrong.withLock { $0 } == [])
        #expect(probe.violations == 0, "a read or write overlapped a write")
        // Each writer's last round wrote k0 (round 100): one of them is what is left.
        #expect(["k0-0-100", "k0-1-100"].contains(Self.answer(dispatcher, Self.get("s", "k0")).secret ?? ""))
    }

    @Test func migrateAndLockUnderConcurrentReads() throws {
        let store = ActiveStore(store: InMemoryStore(), reason: "a test")
        let dispatcher = dispatcher(store)
        for key in 0..<20 { #expect(Self.answer(dispatcher, Self.set("m", "k\(key)", "k\(key)-secret")).code == nil) }
        let phase = AdaptiveLock(0)  // 0: migrating, 1: locking, 2: locked
        let wrong = AdaptiveLock<[String]>([])
        let destination = InMemoryStore()
        let readers: [@Sendable () -> Void] = (0..<4).map { reader in {
            var round = 0
            while true {
                let current = phase.withLock { $0 }
                if current == 2 && round > 0 { break }
                let key = "k\((reader + round) % 20)"
                let (secret, code) = Self.answer(dispatcher, Self.get("m", key))
                // Locked only once the lock has begun (read after the answer: it may have begun meanwhile).
                let fine = secret == key + "-secret" || (code == "locked" && phase.withLock { $0 } >= 1)
                if !fine { wrong.withLock { $0.append("phase \(current) \(key): \(secret ?? code ?? "nothing")") } }
                round += 1
            }
        } }
        let driver: @Sendable () -> Void = {
            let report = try? store.migrate(to: destination, reason: "test migration") { _ in }
            if report?.copied != 20 { wrong.withLock { $0.append("migration copied \(report?.copied ?? -1)") } }
            phase.withLock { $0 = 1 }
            if let code = Self.answer(dispatcher, #"{"op":"lock"}"#).code { wrong.withLock { $0.append("lock: \(code)") } }
            phase.withLock { $0 = 2 }
        }
        Self.onThreads(readers + [driver])
        #expect(wrong.withLock { $0 } == [])
        #expect(store.current.store === destination)
        // Locked after the lock answered, and from the store migrated to.
        #expect(Self.answer(dispatcher, Self.get("m", "k1")).code == "locked")
        #expect(Self.answer(dispatcher, #"{"op":"unlock"}"#).code == nil)
        #expect(Self.answer(dispatcher, Self.get("m", "k1")).secret == "k1-secret")
    }

    @Test func fileStoreServesParallelReadsAndWrites() throws {
        let file = EncryptedFileStore(path: directory.file("data/vault.db"), options: .init(kdfParameters: .minimum))
        try file.unlock(passphrase: SecretBytes(utf8: "a passphrase for the test"))
        let dispatcher = dispatcher(ActiveStore(store: file, reason: "a test"))
        for key in 0..<3 { #expect(Self.answer(dispatcher, Self.set("f", "k\(key)", "k\(key)-0")).code == nil) }
        let wrong = AdaptiveLock<[String]>([])
        let readers = Self.readers(4, rounds: 200, of: "f", keys: 3, dispatcher) { problem in wrong.withLock { $0.append(problem) } }
        let writer: @Sendable () -> Void = {
            for round in 1...30 {
                if let code = Self.answer(dispatcher, Self.set("f", "k\(round % 3)", "k\(round % 3)-\(round)")).code { wrong.withLock { $0.append("set: \(code)") } }
            }
        }
        Self.onThreads(readers + [writer])
        #expect(wrong.withLock { $0 } == [])
        #expect(Self.answer(dispatcher, Self.get("f", "k0")).secret == "k0-30")
    }
}

/// An in-memory store that watches how it is called: a write (or lock) while anything else is
/// inside is a violation; two `get`s of account "rendezvous" wait for each other.
final class ProbeStore: VaultStore, @unchecked Sendable {
    private let inner = InMemoryStore()
    private let condition = NSCondition()
    // Touched only with `condition` locked.
    private var readers = 0
    private var writers = 0
    private var waitingAtRendezvous = 0
    private var missed = false
    private var violationCount = 0

    var kind: StoreKind { .memory }
    /// Two gets of "rendezvous" were inside at once, neither gave up waiting for the other.
    var readersMet: Bool { condition.lock(); defer { condition.unlock() }; return waitingAtRendezvous >= 2 && !missed }
    var violations: Int { condition.lock(); defer { condition.unlock() }; return violationCount }

    private func reading<R>(_ body: () throws -> R) rethrows -> R {
        condition.lock()
        if writers > 0 { violationCount += 1 }
        readers += 1
        condition.unlock()
        defer { condition.lock(); readers -= 1; condition.unlock() }
        return try body()
    }

    private func writing<R>(_ body: () throws -> R) rethrows -> R {
        condition.lock()
        if writers > 0 || readers > 0 { violationCount += 1 }
        writers += 1
        condition.unlock()
        defer { condition.lock(); writers -= 1; condition.unlock() }
        return try body()
    }

    func status() -> StoreStatus { inner.status() }

    func get(_ key: ItemKey) throws -> Item {
        try reading {
            if key.account == "rendezvous" {
                condition.lock()
                waitingAtRendezvous += 1
                condition.broadcast()
                let deadline = Date(timeIntervalSinceNow: 10)
                while waitingAtRendezvous < 2 && condition.wait(until: deadline) {}
                if waitingAtRendezvous < 2 { missed = true }
                condition.unlock()
            }
            return try inner.get(key)
        }
    }

    func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo { try writing { try inner.add(key, secret: secret, changes: changes) } }
    func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo { try writing { try inner.set(key, secret: secret, changes: changes) } }
    func delete(_ key: ItemKey) throws { try writing { try inner.delete(key) } }
    func list(service: String?) throws -> [ItemInfo] { try reading { try inner.list(service: service) } }
    func lock() throws { try writing { try inner.lock() } }
    func unlock(passphrase: SecretBytes?) throws { try writing { try inner.unlock(passphrase: passphrase) } }
}

/// Paged `list` in-process over 100,000 items: every item exactly once, in order, within the
/// page limits, also while items are added between pages; one service's pages stay in it.
@Suite struct PagedListDispatchTests {
    @Test func pagesCoverEveryItemOnce() throws {
        let memory = InMemoryStore()
        for index in 0..<100_000 { try memory.set(try ItemKey(service: "s\(index % 3)", account: "item-\(index)"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) }
        let directory = TemporaryDirectory(prefix: "vault-pages")
        let configuration = DaemonConfiguration(socketPath: directory.file("vault.sock"), vaultFilePath: directory.file("vault.db"), environment: [:])
        let dispatcher = RequestDispatcher(store: ActiveStore(store: memory, reason: "a test"), catalog: StoreCatalog(configuration: configuration),
                                           socketPath: configuration.socketPath, logger: Logger(handler: RecordingLogHandler()))
        func page(_ request: ListRequest) throws -> ResultBody {
            guard case .success(let body) = dispatcher.handle(line: Array(MessageCodec.encode(RequestLine(id: nil, request: .list(request))).dropLast())).response else {
                throw VaultError.invalidInput("list failed")
            }
            return body
        }
        var seen: [ItemKey] = []
        var after: String?
        var pages = 0
        repeat {
            let body = try page(ListRequest(after: after, limit: 5_000))
            #expect((body.items ?? []).count <= 5_000)
            seen += try (body.items ?? []).map { try ItemKey(service: $0.service, account: $0.account) }
            after = body.next
            pages += 1
            // An item added behind the listing's position is not listed; one ahead of it is.
            if pages == 2 { try memory.set(try ItemKey(service: "s0", account: "aaa-behind"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) }
            if pages == 2 { try memory.set(try ItemKey(service: "s9", account: "ahead"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) }
        } while after != nil
        #expect(pages == 21)
        #expect(seen.count == 100_001 && Set(seen).count == 100_001 && seen == seen.sorted())
        #expect(seen.last == (try ItemKey(service: "s9", account: "ahead")))
        // One service, paged: only its items, all of them.
        var service: [ItemKey] = []
        after = nil
        repeat {
            let body = try page(ListRequest(service: "s1", after: after, limit: 777))
            service += try (body.items ?? []).map { try ItemKey(service: $0.service, account: $0.account) }
            after = body.next
        } while after != nil
        #expect(service.count == 33_333 && service.allSatisfy { $0.service == "s1" })
    }
}
