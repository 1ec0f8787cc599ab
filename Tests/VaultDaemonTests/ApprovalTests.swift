import Foundation
import Synchronization
import Testing
@testable import VaultDaemon
import VaultCore
import VaultCrypto
import VaultProtocol
import VaultStores
import VaultTestSupport
import VaultSystem

/// Who may approve, in-process: only a connection that proved the approval secret, only for the
/// request it was handed, never for its own process or an ancestor, by ids nobody can guess.
@Suite struct ApprovalTests {
    let directory = TemporaryDirectory(prefix: "vault-approval")
    let secret = SecretBytes(utf8: "the person's approval secret")

    func access(_ store: any VaultStore = InMemoryStore()) -> AccessControl {
        AccessControl(
            store: ActiveStore(store: store, reason: "a test"), vaultFile: directory.file("data/vault.db"), approvalTimeout: 5,
            confirmAll: false, logger: Logger(handler: RecordingLogHandler()))
    }

    func key(_ access: AccessControl) throws -> SecretBytes? { try access.store.perform { try AuditKey.get(in: $0, creating: false) } }

    /// Asks on a thread of its own; the answer arrives in `answer`.
    final class Asking: Sendable {
        let answer = AdaptiveLock<ApprovalBroker.Answer?>(nil)
        let done = DispatchSemaphore(value: 0)

        /// `identified`: vaultd read the caller's executable (it holds a pidfd), not only a pid.
        init(_ broker: ApprovalBroker, pid: Int32?, identified: Bool = true) {
            var caller = CallerIdentity(pid: pid)
            if identified { caller.executable = "/usr/bin/requester" }
            Thread.detachNewThread { [self, caller] in
                let result = try? broker.ask(op: "get", item: try! ItemKey(service: "svc", account: "acct"), caller: caller)
                answer.withLock { $0 = result }
                done.signal()
            }
        }
    }

    @Test func noConnectionBecomesAnApproverWithoutTheApprovalSecret() throws {
        let access = access()
        let connection = NSObject()
        #expect(throws: VaultError.notFound(.approvalSecret)) {
            try access.registerApprover(ObjectIdentifier(connection), secret: secret, caller: .unknown, hungUp: { false })
        }
        try access.setApprovalSecret(secret, proof: nil, parameters: .minimum, caller: .unknown)
        do {
            try access.registerApprover(ObjectIdentifier(connection), secret: SecretBytes(utf8: "a guess at it"), caller: CallerIdentity(pid: 77), hungUp: { false })
            Issue.record("a wrong secret made an approver")
        } catch let error as VaultError {
            #expect(error.code == .denied)
        }
        #expect(!access.broker.hasApprover)
        try access.registerApprover(ObjectIdentifier(connection), secret: secret, caller: .unknown, hungUp: { false })
        #expect(access.broker.isApprover(ObjectIdentifier(connection)))
        // The guess is on the record.
        let records = try access.audit.records(key: try #require(try key(access)), after: .min).records
        #expect(records.contains { $0.op == "approve_next" && $0.result == "denied" && $0.pid == 77 && $0.grant == "wrong approval secret" })
    }

    @Test func changingTheApprovalSecretNeedsTheCurrentOne() throws {
        let access = access()
        try access.setApprovalSecret(secret, proof: nil, parameters: .minimum, caller: .unknown)
        let new = SecretBytes(utf8: "another approval secret")
        #expect(throws: VaultError.passphraseUnavailable("setting the approval secret needs the current approval secret")) {
            try access.setApprovalSecret(new, proof: nil, parameters: .minimum, caller: .unknown)
        }
        #expect(throws: VaultError.self) { try access.setApprovalSecret(new, proof: new, parameters: .minimum, caller: .unknown) }
        try access.setApprovalSecret(new, proof: secret, parameters: .minimum, caller: .unknown)
        #expect(throws: VaultError.self) { try access.registerApprover(ObjectIdentifier(NSObject()), secret: secret, caller: .unknown, hungUp: { false }) }
        #expect(throws: VaultError.invalidInput("an approval secret is 8 to 1024 bytes long")) {
            try access.setApprovalSecret(SecretBytes(utf8: "short"), proof: new, parameters: .minimum, caller: .unknown)
        }
    }

    @Test func onTheFileStoreTheFirstApprovalSecretNeedsTheVaultsPassphrase() throws {
        let file = EncryptedFileStore(path: directory.file("data/vault.db"), options: .init(kdfParameters: .minimum))
        let passphrase = SecretBytes(utf8: "the vault's passphrase")
        try file.unlock(passphrase: passphrase)
        let access = access(file)
        #expect(throws: VaultError.passphraseUnavailable("setting the approval secret needs the vault's passphrase")) {
            try access.setApprovalSecret(secret, proof: nil, parameters: .minimum, caller: .unknown)
        }
        #expect(throws: VaultError.self) { try access.setApprovalSecret(secret, proof: SecretBytes(utf8: "not it"), parameters: .minimum, caller: .unknown) }
        try access.setApprovalSecret(secret, proof: passphrase, parameters: .minimum, caller: .unknown)
        // Forgotten: the vault's passphrase changes it too.
        try access.setApprovalSecret(SecretBytes(utf8: "a third approval secret"), proof: passphrase, parameters: .minimum, caller: .unknown)
    }

    @Test func anAnswerCountsOnlyFromTheApproverTheRequestWasHandedTo() throws {
        let broker = ApprovalBroker(timeout: 5)
        let (first, second) = (NSObject(), NSObject())
        broker.register(ObjectIdentifier(first), pid: nil, hungUp: { false })
        broker.register(ObjectIdentifier(second), pid: nil, hungUp: { false })
        let asking = Asking(broker, pid: 4242)
        let shown = try #require(broker.next(approver: ObjectIdentifier(first), seconds: 5))
        #expect(broker.next(approver: ObjectIdentifier(second), seconds: 0.1) == nil, "handed to one approver at a time")
        #expect(!broker.answer(shown.id, .always, from: ObjectIdentifier(second)))
        #expect(!broker.answer(shown.id + 1, .always, from: ObjectIdentifier(first)))
        #expect(broker.answer(shown.id, .once, from: ObjectIdentifier(first)))
        asking.done.wait()
        #expect(asking.answer.withLock { $0 } == .once)
    }

    @Test func requestIdsAreDrawnAtRandom() throws {
        let broker = ApprovalBroker(timeout: 1)
        let approver = NSObject()
        broker.register(ObjectIdentifier(approver), pid: nil, hungUp: { false })
        var ids: [Int] = []
        for _ in 0..<4 {
            let asking = Asking(broker, pid: 4242)
            let shown = try #require(broker.next(approver: ObjectIdentifier(approver), seconds: 5))
            ids.append(shown.id)
            #expect(broker.answer(shown.id, .deny, from: ObjectIdentifier(approver)))
            asking.done.wait()
        }
        #expect(Set(ids).count == 4 && ids.allSatisfy { ApprovalBroker.idRange.contains($0) })
        #expect(zip(ids, ids.dropFirst()).allSatisfy { abs($0.1 - $0.0) > 1_000 }, "\(ids)")
    }

    @Test func aRequestIsNeverHandedToAnApproverItsProcessOrAnAncestorStarted() throws {
        let broker = ApprovalBroker(timeout: 5)
        // This process registers as the approver; the requester is its parent (the test runner's
        // launcher), then this process itself.
        let mine = NSObject(), other = NSObject()
        broker.register(ObjectIdentifier(mine), pid: getpid(), hungUp: { false })
        for requester in [getppid(), getpid()] {
            let asking = Asking(broker, pid: requester)
            #expect(broker.next(approver: ObjectIdentifier(mine), seconds: 0.3) == nil)
            // Another approver is shown it, with the requester's parents.
            broker.register(ObjectIdentifier(other), pid: nil, hungUp: { false })
            let shown = try #require(broker.next(approver: ObjectIdentifier(other), seconds: 5))
            #expect(shown.pid == requester && shown.ancestry?.first?.pid == ProcessAncestry.parent(of: requester))
            #expect(broker.answer(shown.id, .deny, from: ObjectIdentifier(other)))
            asking.done.wait()
            broker.remove(approver: ObjectIdentifier(other))
        }
        // A caller known by nothing but a pid (a D-Bus caller the bus cannot name) is shown no
        // ancestry: the pid may name another process by now.
        broker.register(ObjectIdentifier(other), pid: nil, hungUp: { false })
        let unknown = Asking(broker, pid: getppid(), identified: false)
        let shown = try #require(broker.next(approver: ObjectIdentifier(other), seconds: 5))
        #expect(shown.ancestry?.isEmpty != false)
        #expect(broker.answer(shown.id, .deny, from: ObjectIdentifier(other)))
        unknown.done.wait()
    }

    @Test func theAncestryIsReadFromProcAndStopsBeforeInit() throws {
        let chain = ProcessAncestry.ancestors(of: getpid())
        #expect(chain.first == getppid() && !chain.contains(1) && !chain.contains(0))
        let described = ProcessAncestry.described(getpid())
        #expect(described.count <= ApprovalBody.maxAncestry && described.first?.pid == getppid() && described.first?.exe != nil)
        #expect(ProcessAncestry.parent(of: Int32.max) == nil)
    }
}
