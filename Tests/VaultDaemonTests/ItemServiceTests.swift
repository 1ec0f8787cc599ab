import Foundation
import Synchronization
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultStores
import VaultTestSupport
import VaultSystem

/// The policy every door applies (`ItemService`), stated once and run for both doors' scopes:
/// the socket's (every kind of item) and the Secret Service's (plain secrets only). Callers are
/// values, as each door builds them: a program's path and content hash, or nobody in particular.
@Suite struct ItemServiceTests {
    let directory = TemporaryDirectory(prefix: "vault-item-service")
    let counting = CountingStore()
    let service: ItemService
    let posted = Posted()

    final class Posted: Sendable {
        let changes = AdaptiveLock<[ItemChangeFeed.Change]>([])
        var all: [ItemChangeFeed.Change] { changes.withLock { $0 } }
        func append(_ change: ItemChangeFeed.Change) { changes.withLock { $0.append(change) } }
    }

    init() {
        let store = ActiveStore(store: counting, reason: "a test")
        let logger = Logger(handler: RecordingLogHandler())
        let access = AccessControl(store: store, vaultFile: directory.file("data/vault.db"), approvalTimeout: 5, confirmAll: false, logger: logger)
        let feed = ItemChangeFeed()
        service = ItemService(store: store, access: access, changes: feed, logger: logger)
        feed.listen { [posted] change in posted.append(change) }
    }

    static let scopes: [ItemService.Scope] = [.everyKind, .plainSecrets]
    let key = try! ItemKey(service: "svc", account: "acct")

    /// A caller running the program at `path` (its real path and the SHA-256 of its content).
    static func running(_ path: String, pid: Int32 = 4242) -> CallerIdentity {
        var caller = CallerIdentity(pid: pid)
        caller.executable = PeerProcess.realPath(path)
        caller.executableHash = caller.executable.flatMap(ExecutableHashes.shared.hash(ofFile:))
        return caller
    }

    static let allowed = running("/usr/bin/env")
    static let other = running("/usr/bin/true", pid: 4343)

    func store(_ secret: String = "s3cret", kind: ItemKind = .secret, at key: ItemKey? = nil) throws {
        _ = try service.write(key ?? self.key, secret: SecretBytes(utf8: secret), changes: ItemChanges(kind: kind), replacing: true, confirm: false, by: ItemRequest(.unknown))
    }

    func records() throws -> [AuditEntryBody] {
        guard let auditKey = try service.store.perform({ try AuditKey.get(in: $0, creating: false) }) else { return [] }
        return try service.access.audit.records(key: auditKey, after: .min).records
    }

    func lastRecord() throws -> AuditEntryBody? { try records().last }

    @Test(arguments: scopes) func anUnguardedItemIsReadByAnyCallerAndTheReadIsAudited(scope: ItemService.Scope) throws {
        try store()
        let item = try service.read(key, by: ItemRequest(Self.other), in: scope)
        #expect(item.secret == SecretBytes(utf8: "s3cret"))
        let record = try #require(try lastRecord())
        #expect(record.op == "get" && record.service == "svc" && record.account == "acct" && record.result == "ok")
        #expect(record.pid == 4343 && record.exe == Self.other.executable && record.grant == nil)
    }

    @Test(arguments: scopes) func aRuleAdmitsItsProgramAndRefusesOthersBeforeTheSecretIsRead(scope: ItemService.Scope) throws {
        try store()
        _ = try service.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        #expect(try service.read(key, by: ItemRequest(Self.allowed), in: scope).secret == SecretBytes(utf8: "s3cret"))
        #expect(try lastRecord()?.grant == "rule")
        let reads = counting.gets(of: key)
        #expect(throws: VaultError.self) { try service.read(key, by: ItemRequest(Self.other), in: scope) }
        #expect(throws: VaultError.self) { try service.read(key, by: ItemRequest(.unknown), in: scope) }
        // Refused before the item was read from the store at all.
        #expect(counting.gets(of: key) == reads)
        let refusals = try records().filter { $0.result == "denied" }
        #expect(refusals.count == 2 && refusals.allSatisfy { $0.op == "get" && $0.service == "svc" })
    }

    @Test(arguments: scopes) func aProgramWhoseContentChangedIsRefusedAndToldHowToAllowItAgain(scope: ItemService.Scope) throws {
        try store()
        _ = try service.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        var changed = Self.allowed
        changed.executableHash = String(repeating: "0", count: 64)
        do {
            _ = try service.read(key, by: ItemRequest(changed), in: scope)
            Issue.record("a changed program was served")
        } catch let error as VaultError {
            #expect(error.code == .denied && "\(error)".contains("has changed since it was allowed") && "\(error)".contains("vaultctl allow"))
        }
    }

    @Test(arguments: scopes) func anItemThatNeedsConfirmationAsksTheApproverAndRecordsHowItWasGranted(scope: ItemService.Scope) throws {
        _ = try service.write(key, secret: SecretBytes(utf8: "s3cret"), changes: ItemChanges(), replacing: true, confirm: true, by: ItemRequest(.unknown))
        // No approver running: refused at once, saying what to run.
        do {
            _ = try service.read(key, by: ItemRequest(Self.other), in: scope)
            Issue.record("served without an approver")
        } catch let error as VaultError {
            #expect(error.code == .denied && "\(error)".contains("vaultctl approve"))
        }
        for (answer, served, grant) in [(ApprovalBroker.Answer.once, true, "approved once"), (.deny, false, nil)] {
            let approver = Approver(broker: service.access.broker, answer: answer)
            let outcome = Result { try service.read(key, by: ItemRequest(Self.other), in: scope) }
            approver.done.wait()
            #expect(approver.shown.withLock { $0?.service } == "svc")
            #expect(((try? outcome.get()) != nil) == served)
            let record = try #require(try records().last { $0.op == "get" })
            #expect(record.result == (served ? "ok" : "denied") && (!served || record.grant == grant))
        }
    }

    @Test(arguments: scopes) func aDeleteTakesTheItemsRulesWithIt(scope: ItemService.Scope) throws {
        try store()
        _ = try service.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        try service.delete(key, by: ItemRequest(Self.allowed), in: scope)
        #expect(try service.rules(of: key) == nil)
        try store("again")
        // Made again under the name, the item starts unguarded.
        #expect(try service.read(key, by: ItemRequest(Self.other), in: scope).secret == SecretBytes(utf8: "again"))
        #expect(try records().contains { $0.op == "delete" && $0.result == "ok" && $0.exe == Self.allowed.executable })
    }

    @Test(arguments: scopes) func aMoveNeedsAReadsCheckAndTakesTheRulesAlong(scope: ItemService.Scope) throws {
        try store()
        _ = try service.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        let target = try ItemKey(service: "moved", account: "acct")
        #expect(throws: VaultError.self) { try service.move(key, to: target, by: ItemRequest(Self.other), in: scope) { _ in ItemChanges() } }
        #expect(try service.read(key, by: ItemRequest(Self.allowed), in: scope).secret == SecretBytes(utf8: "s3cret"))
        #expect(try records().contains { $0.op == "set" && $0.service == "svc" && $0.result == "denied" })
        _ = try service.move(key, to: target, by: ItemRequest(Self.allowed), in: scope) { _ in ItemChanges() }
        #expect(try service.rules(of: key) == nil && service.rules(of: target)?.allow.map(\.path) == [Self.allowed.executable!])
        #expect(throws: VaultError.self) { try service.read(target, by: ItemRequest(Self.other), in: scope) }
        let moved = try records().suffix(3)
        #expect(moved.contains { $0.op == "delete" && $0.service == "svc" && $0.result == "ok" && $0.grant == "rule" })
        #expect(moved.contains { $0.op == "set" && $0.service == "moved" && $0.result == "ok" && $0.grant == "rule" })
        #expect(posted.all.suffix(2) == [.deleted(key), .created(target, .secret)])
    }

    @Test(arguments: scopes) func readingSeveralItemsIsAllOrNone(scope: ItemService.Scope) throws {
        let open = try ItemKey(service: "open", account: "acct")
        try store("open-secret", at: open)
        try store()
        _ = try service.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        let before = try records().count
        #expect(throws: VaultError.self) { try service.readAll([open, key], by: ItemRequest(Self.other), in: scope) }
        #expect(try records().dropFirst(before).map(\.result) == ["denied"])
        let both = try service.readAll([open, key, try ItemKey(service: "none", account: "acct")], by: ItemRequest(Self.allowed), in: scope)
        #expect(both.map(\.info.key) == [open, key])
        #expect(try records().suffix(2).map(\.result) == ["ok", "ok"])
    }

    @Test func theSecretServiceScopeNeitherShowsNorChangesOtherKinds() throws {
        try store("a session", kind: .session)
        #expect(throws: VaultError.notFound(key)) { try service.read(key, by: ItemRequest(.unknown), in: .plainSecrets) }
        #expect(throws: VaultError.notFound(key)) { try service.delete(key, by: ItemRequest(.unknown), in: .plainSecrets) }
        #expect(throws: VaultError.notFound(key)) {
            try service.update(key, by: ItemRequest(.unknown), in: .plainSecrets) { item in (SecretBytes(utf8: "overwritten"), ItemChanges()) }
        }
        #expect(try service.info(key, in: .plainSecrets) == nil && service.search([:], in: .plainSecrets).isEmpty)
        #expect(throws: VaultError.self) {
            try service.create(named: key, attributes: [:], replacing: true, secret: SecretBytes(utf8: "x"), changes: ItemChanges(), by: ItemRequest(.unknown))
        }
        #expect(try service.read(key, by: ItemRequest(.unknown), in: .everyKind).secret == SecretBytes(utf8: "a session"))
        // Each refusal is on the record with its code.
        #expect(try records().filter { $0.service == "svc" }.map { "\($0.op) \($0.result)" } == [
            "set ok", "get not_found", "delete not_found", "set not_found", "set permission_denied", "get ok",
        ])
    }

    @Test func everyChangeIsPostedForTheSecretServiceSignalsWhicheverDoorMadeIt() throws {
        try store()
        _ = try service.update(key, by: ItemRequest(.unknown), in: .plainSecrets) { item in (item.secret, ItemChanges(label: "L")) }
        let made = try service.create(named: nil, attributes: ["app": "x"], replacing: true, secret: SecretBytes(utf8: "y"), changes: ItemChanges(attributes: ["app": "x"]), by: ItemRequest(.unknown))
        let again = try service.create(named: nil, attributes: ["app": "x"], replacing: true, secret: SecretBytes(utf8: "z"), changes: ItemChanges(attributes: ["app": "x"]), by: ItemRequest(.unknown))
        #expect(made.info.key == again.info.key && !made.replaced && again.replaced)
        try service.delete(key, by: ItemRequest(.unknown), in: .everyKind)
        #expect(posted.all == [
            .created(key, .secret), .changed(key, .secret), .created(made.info.key, .secret),
            .changed(made.info.key, .secret), .deleted(key),
        ])
    }

    @Test func everyAuditedOperationTouchesItemsAndPostponesAutoLock() {
        for operation in Operation.allCases where operation.traits.audited {
            #expect(operation.traits.touchesItems && operation.traits.postponesAutoLock, "\(operation)")
        }
        #expect(Operation.allCases.filter(\.traits.audited).map(\.rawValue).sorted()
                == ["add", "allow", "delete", "disallow", "foreign_delete", "foreign_get", "foreign_set", "get", "kv_delete", "kv_get", "kv_put", "resolve_credential", "set", "token"])
    }
}

/// An approver on a thread of its own: registered with the broker (as a connection that proved
/// the approval secret is), it takes the next request it is handed, answers it, and goes.
final class Approver: Sendable {
    let shown = AdaptiveLock<ApprovalBody?>(nil)
    let done = DispatchSemaphore(value: 0)

    init(broker: ApprovalBroker, answer: ApprovalBroker.Answer) {
        let identity = ObjectIdentifier(self)
        broker.register(identity, pid: nil, hungUp: { false })
        Thread.detachNewThread { [self] in
            if let request = broker.next(approver: identity, seconds: 5) {
                shown.withLock { $0 = request }
                _ = broker.answer(request.id, answer, from: identity)
            }
            broker.remove(approver: identity)
            done.signal()
        }
    }
}

/// A guarded item is not given out unrecorded: with audit.log unwritable (a directory in its
/// place), a read its rules allow is refused, and an unguarded item is still served.
@Suite struct AuditFailClosedTests {
    @Test func aGuardedReadThatCannotBeRecordedIsRefused() throws {
        let tests = ItemServiceTests()
        let key = tests.key, service = tests.service
        try tests.store()
        let open = try ItemKey(service: "open", account: "acct")
        try tests.store("open-secret", at: open)
        _ = try service.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        #expect(try service.read(key, by: ItemRequest(ItemServiceTests.allowed), in: .everyKind).secret == SecretBytes(utf8: "s3cret"))
        // audit.log replaced by a directory: nothing can be appended.
        let log = service.access.audit.path
        try FileManager.default.removeItem(atPath: log)
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: false)
        do {
            _ = try service.read(key, by: ItemRequest(ItemServiceTests.allowed), in: .everyKind)
            Issue.record("a guarded item was given out unrecorded")
        } catch let error as VaultError {
            #expect(error.code == .denied && "\(error)".contains("could not be written to the audit log"))
        }
        #expect(throws: VaultError.self) { try service.readAll([open, key], by: ItemRequest(ItemServiceTests.allowed), in: .everyKind) }
        #expect(try service.read(open, by: ItemRequest(ItemServiceTests.other), in: .everyKind).secret == SecretBytes(utf8: "open-secret"))
    }
}

/// Another helper's item (git-credential-libsecret's, kept by vaultd's provider) is decided on by
/// its names before its secret is read, as vault's own items are.
extension ItemServiceTests {
    @Test func anotherHelpersItemIsNotReadForACallerItsRulesRefuse() throws {
        let attributes = ["xdg:schema": "org.git.Password", "protocol": "https", "server": "h.example", "user": "alice"]
        let created = try service.create(named: nil, attributes: attributes, replacing: false, secret: SecretBytes(utf8: "theirs"),
                                         changes: ItemChanges(label: "theirs", attributes: attributes), by: ItemRequest(.unknown))
        let key = created.info.key
        _ = try service.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        let matching: [String: String?] = ["protocol": "https", "server": "h.example", "user": "alice"]
        #expect(throws: VaultError.self) { try service.readForeign(.git, matching: matching, by: ItemRequest(Self.other)) }
        #expect(counting.gets(of: key) == 0, "the refused caller's item was read")
        #expect(try lastRecord()?.op == "foreign_get" && lastRecord()?.result == "denied")
        let read = try service.readForeign(.git, matching: matching, by: ItemRequest(Self.allowed))
        #expect(read?.secret == SecretBytes(utf8: "theirs") && read?.item.itemKey == key)
        #expect(counting.gets(of: key) == 1)
        #expect(try lastRecord()?.grant == "rule")
    }
}
