import Synchronization
import VaultCore
import VaultProtocol
import VaultSystem

/// Who may read which item: the rules stored in the vault (`AccessRules`), grants an approver
/// gave for a while, and the approver itself (`ApprovalBroker`); and the audit log of every
/// access. The rules and the audit key are kept decoded between requests (`StoreCache`): every
/// write, lock, unlock and migrate of this vaultd empties them, and a change of the vault file
/// (another vaultd on the same file, a restore) makes the next request load them again, so a
/// rule applies from the very next request either way.
final class AccessControl: Sendable {
    /// An approver's "for N minutes": this program may read this item until `until` (monotonic).
    private struct TimedGrant {
        var item: ItemKey
        var program: CallerIdentity.Program
        var until: Double
    }

    let store: ActiveStore
    let broker: ApprovalBroker
    let audit: AuditLog
    /// `--confirm-all`: every item needs the approver, as if each were marked `confirm`.
    let confirmAll: Bool
    private let logger: Logger
    private let grants = AdaptiveLock([TimedGrant]())
    private let cachedRules: StoreCache<AccessRules>
    /// The audit key, or nil while it does not exist yet.
    private let cachedAuditKey: StoreCache<SecretBytes?>

    /// `vaultFile`: the file store's vault, whose directory also holds the audit log.
    init(store: ActiveStore, vaultFile: String, approvalTimeout: Double, confirmAll: Bool, logger: Logger) {
        self.store = store
        self.confirmAll = confirmAll
        self.logger = logger
        broker = ApprovalBroker(timeout: approvalTimeout)
        audit = AuditLog(directory: FileSystem.parentDirectory(of: vaultFile))
        cachedRules = StoreCache()
        cachedAuditKey = StoreCache()
        store.register(cachedRules)
        store.register(cachedAuditKey)
        // The audit log's head goes into the vault while its keys are at hand.
        store.beforeLocking { [audit] store in Self.saveHead(of: audit, to: store) }
    }

    /// Every access rule, from the cache or the store; a read beside other reads, so checking
    /// rules does not make every get take turns; through `reads`, a request's view, when given.
    func currentRules(reads: StoreReadView = StoreReadView()) throws -> AccessRules {
        try store.read(reads) { active in try cachedRules.value(in: active) { try AccessRules.load(from: $0) } }
    }

    /// How access to a guarded item was granted, for its audit record: "rule", "approved once",
    /// ...; nil for an unguarded item.
    typealias Grant = String

    /// Throws `denied` unless `caller` may read `item`: the item has no rules (and not
    /// `--confirm-all`), a rule names the caller's program (path and content), an approver's
    /// grant for a while covers it, or, for an item that needs confirmation, the approver says
    /// yes now. Returns how access was granted. `reads`: the request's view of the store.
    func checkRead(_ item: ItemKey, op: Operation, caller: CallerIdentity, reads: StoreReadView) throws -> Grant? {
        let rules = try currentRules(reads: reads)
        let verdict = rules.verdict(for: item, caller: caller)
        switch verdict {
        case .unguarded where !confirmAll:
            return nil
        case .allowed:
            return "rule"
        case .injected:
            // No rule, and no grant for a while either: the approver, if the item has one, decides.
            guard confirmAll || rules.entry(item)?.confirm == true else { throw Self.refusal(verdict, item: item, caller: caller, rules: rules) }
            return try askApprover(op: op, item: item, caller: caller, reads: reads)
        case .unguarded, .changed, .interpreterNotPinned, .notAllowed:
            break
        }
        let now = Clock.monotonicSeconds()
        if let principal = caller.principal, grants.withLock({ grants in
            grants.removeAll { $0.until <= now }
            return grants.contains { $0.item == item && $0.program == principal }
        }) {
            return "approved for a while"
        }
        guard confirmAll || rules.entry(item)?.confirm == true else { throw Self.refusal(verdict, item: item, caller: caller, rules: rules) }
        return try askApprover(op: op, item: item, caller: caller, reads: reads)
    }

    /// Asks the approver; returns how it approved (writing the rule or grant it asked for).
    func askApprover(op: Operation, item: ItemKey, caller: CallerIdentity, reads: StoreReadView) throws -> Grant {
        let answer: ApprovalBroker.Answer
        // The answer may take seconds: what the request reads afterwards is read anew.
        defer { reads.lookAgain() }
        do {
            answer = try broker.ask(op: op.rawValue, item: item, caller: caller)
        } catch {
            record(op: "approve", item: item, result: VaultErrorCode.denied.rawValue, caller: caller, grant: "no approver running")
            throw error
        }
        let principal = caller.principal
        let grant: Grant
        switch answer {
        case .once:
            grant = "approved once"
        case .minutes(let minutes):
            grant = "approved for \(minutes) minutes"
            if let principal {
                let until = Clock.monotonicSeconds() + Double(minutes) * 60
                grants.withLock { $0.append(TimedGrant(item: item, program: principal, until: until)) }
            }
        case .always:
            grant = "approved always"
            if let principal { try allow(item, program: principal) }
        case .deny, .timedOut, .approverGone, .tooManyWaiting:
            let why = switch answer {
            case .deny: "the approver denied it"
            case .timedOut: "the approver gave no answer within \(broker.timeout.secondsText) s"
            case .tooManyWaiting: "\(ApprovalBroker.maxPendingPerCaller) requests of this process wait for the approver already (answer them first)"
            default: "the approver went away before answering"
            }
            record(op: "approve", item: item, result: VaultErrorCode.denied.rawValue, caller: caller, grant: why)
            throw VaultError.denied("\(why): \(caller.summary) may not read \(item)")
        }
        record(op: "approve", item: item, result: "ok", caller: caller, grant: grant)
        return grant
    }

    /// Adds an allow rule for `program` (replacing any rule for its path).
    @discardableResult
    func allow(_ item: ItemKey, program: CallerIdentity.Program) throws -> AccessRules.Entry? {
        let added = Timestamp.rfc3339(milliseconds: Clock.nowMilliseconds())
        return try updateRules(item) { entry in
            entry.allow.removeAll { $0.path == program.path }
            entry.allow.append(AccessRules.Program(program, added: added))
        }
    }

    /// Changes the rules of `item` on the store queue and returns its entry afterwards.
    func updateRules(_ item: ItemKey, _ change: @escaping (inout AccessRules.Entry) -> Void) throws -> AccessRules.Entry? {
        try store.perform { store in
            var rules = try AccessRules.load(from: store)
            rules.update(item, change)
            try rules.save(to: store)
            return rules.entry(item)
        }
    }

    func rules(of item: ItemKey) throws -> AccessRules.Entry? {
        try currentRules().entry(item)
    }

    static func refusal(_ verdict: AccessRules.Verdict, item: ItemKey, caller: CallerIdentity, rules: AccessRules) -> VaultError {
        let again = "vaultctl allow \(item.service.shellQuoted) \(item.account.shellQuoted)"
        switch verdict {
        case .changed(let path):
            return .denied("\(path) (or the interpreter it runs under) has changed since it was allowed to read \(item) (its content's SHA-256 differs), so \(caller.summary) was refused; "
                           + "if the change is expected (an upgrade), allow it again: \(again) \(path.shellQuoted)")
        case .interpreterNotPinned(let path):
            return .denied("the rule letting \(path) read \(item) was written before vault pinned a script's interpreter, so \(caller.summary) was refused; allow it again, which pins both: \(again) \(path.shellQuoted)")
        case .injected(let why):
            return .denied("\(caller.summary) was refused \(item): \(why), which lets code other than the allowed program's run inside it, so no rule matches it; start it without that")
        case .unguarded, .allowed, .notAllowed:
            let allowed = rules.entry(item)?.allow.map(\.path).joined(separator: ", ") ?? ""
            let program = caller.principal?.path ?? "PROGRAM"
            return .denied("\(item) may be read only by \(allowed); \(caller.summary) was refused. To allow it: \(again) \(program.shellQuoted)")
        }
    }

    // MARK: Audit

    /// Writes this process's audit chain head to `store` (`AuditHeads`); a failure is no reason
    /// to fail what triggered it, and is seen later as records missing after the stored head.
    static func saveHead(of audit: AuditLog, to store: any VaultStore) {
        let (chain, head) = audit.head
        guard let head else { return }
        try? AuditHeads.save(head, of: chain, to: store)
    }

    /// Appends a record, sealed under the vault's audit key; whether it was written. Nothing is
    /// recorded while the store is locked (its key is in the vault), nor before the key exists; a
    /// failure to write is logged, without names (`ItemService` refuses a guarded read it could
    /// not record).
    @discardableResult
    func record(op: String, item: ItemKey?, result: String, caller: CallerIdentity, grant: String? = nil, reads: StoreReadView = StoreReadView()) -> Bool {
        let entry = AuditEntryBody(
            time: "", op: op, service: item?.service, account: item?.account, result: result, pid: caller.pid, exe: caller.executable,
            script: caller.script, unit: caller.unit, grant: grant)
        do {
            // The key is made by the first access that succeeded or was denied: a vault nobody has
            // stored anything in gets no item of vault's own from a failed lookup.
            let create = result == "ok" || result == VaultErrorCode.denied.rawValue
            // Read beside other reads; only the first record of a vault takes the write side to make the key.
            let existing = try store.read(reads) { active in try cachedAuditKey.value(in: active) { try AuditKey.get(in: $0, creating: false) } }
            guard let key = try existing ?? (create ? store.perform({ try AuditKey.get(in: $0, creating: true) }) : nil) else { return false }
            if try audit.append(entry, key: key) { try? store.perform { Self.saveHead(of: audit, to: $0) } }
            return true
        } catch let error as VaultError where error.code == .locked {
            logger.debug("not audited (the store is locked): \(op)")
        } catch {
            logger.warning("could not append to the audit log \(audit.path): \(error)")
        }
        return false
    }
}
