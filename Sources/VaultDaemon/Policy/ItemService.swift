import VaultCore
import VaultStores
import VaultProtocol

/// What happens when any program reads or changes an item, whichever door its request came
/// through (the socket's `RequestDispatcher`, the D-Bus `SecretServiceProvider`). Each door
/// decodes its request, validates the item's name (`ItemKey(addressable:)`), establishes who is
/// asking (an `ItemRequest`: the `CallerIdentity`, built once per request, and the request's
/// `StoreReadView`) and calls one method here inside `serving(_:)`. Every method runs the same
/// sequence:
///
/// 1. `serving`: the use is recorded for auto-lock (before and after, by the operation's
///    `OperationTraits`). The request's reads (the rules, the item, the audit key) go through
///    its read view: the store looks for other processes' writes once, at the first of them, and
///    the others see the vault file as of that look.
/// 2. The access decision (`AccessControl.checkRead`: the item's rules, a timed grant, the
///    approver) for anything that hands a secret out, before the secret is read.
/// 3. The store's read (beside other reads) or write (alone, `ActiveStore.perform`); a delete
///    or a move takes the item's access rules with it in the same exclusive section.
/// 4. The audit record (`audited`): every outcome of an audited operation, success or error
///    code, is recorded once its item is known, before the answer leaves vaultd; a guarded
///    item (granted by a rule or the approver) is refused when its read cannot be recorded.
/// 5. The change is posted to `changes` (the Secret Service's `ItemCreated`, `ItemChanged`,
///    `ItemDeleted`, whichever door made it) and logged without naming the item unless verbose.
///
/// It takes and returns domain values (`ItemKey`, `Item`, `ItemInfo`), never wire or D-Bus types;
/// errors are `VaultError`s, which each door maps to its own (a wire code, a D-Bus error name).
final class ItemService: Sendable {
    let store: ActiveStore
    let access: AccessControl
    /// Items created, changed and deleted, for the Secret Service's signals.
    let changes: ItemChangeFeed
    let logger: Logger

    init(store: ActiveStore, access: AccessControl, changes: ItemChangeFeed, logger: Logger) {
        self.store = store
        self.access = access
        self.changes = changes
        self.logger = logger
    }

    /// Which items a door shows: the socket every item a request may address, the Secret
    /// Service only plain secrets (sign-in sessions, AWS credentials and vault's own records are
    /// neither shown nor overwritten over D-Bus).
    enum Scope: Sendable {
        case everyKind
        case plainSecrets

        func shows(_ kind: ItemKind) -> Bool { self == .everyKind || kind == .secret }
    }

    /// What an audit record says besides the operation and the caller, filled in as the
    /// operation learns it.
    struct AuditFacts {
        var item: ItemKey?
        var grant: AccessControl.Grant?
        /// Where the item went, for a move: its success is recorded as a delete of `item` and a
        /// set of this key (a refusal or failure as the operation itself, on `item`).
        var movedTo: ItemKey?
    }

    /// Runs one request of a door as `op`: auto-lock counts from its start and its end (a long
    /// request, a migration or a slow refresh, is not locked mid-way), and a Secret Service that
    /// stopped answering costs it one timeout, not one per call.
    func serving<R>(_ op: Operation, _ body: () throws -> R) rethrows -> R {
        let isUse = op.traits.postponesAutoLock
        if isUse { store.recordUse() }
        defer { if isUse { store.recordUse() } }
        return try SecretServiceStore.oneRequest(body)
    }

    /// Runs `body` as the audited operation `op` of `caller` and records its outcome: "ok", or
    /// the error's code. An operation that failed before it named an item records nothing
    /// unless it was a refusal (a request with a bad name is no access).
    func audited<R>(_ op: Operation, _ item: ItemKey?, by request: ItemRequest, _ body: (inout AuditFacts) throws -> R) throws -> R {
        precondition(op.traits.audited, "\(op.rawValue) is not an audited operation (OperationTraits)")
        var facts = AuditFacts(item: item)
        do {
            let result = try body(&facts)
            if let target = facts.movedTo {
                access.record(op: Operation.delete.rawValue, item: facts.item, result: "ok", caller: request.caller, grant: facts.grant, reads: request.reads)
                access.record(op: Operation.set.rawValue, item: target, result: "ok", caller: request.caller, grant: facts.grant, reads: request.reads)
            } else if !access.record(op: op.rawValue, item: facts.item, result: "ok", caller: request.caller, grant: facts.grant, reads: request.reads),
                      op.traits.handsOutSecret, facts.grant != nil {
                // Fail closed: what its rules or the approver guard goes out only on the record.
                throw VaultError.denied("\(facts.item.map { "\($0)" } ?? "the item") is guarded, and this read could not be written to the audit log \(access.audit.path), so it was refused; vaultd's log says why")
            }
            return result
        } catch {
            let code = (error as? VaultError)?.code ?? .internal
            if facts.item != nil || code == .denied {
                access.record(op: op.rawValue, item: facts.item, result: code.rawValue, caller: request.caller, grant: facts.grant, reads: request.reads)
            }
            throw error
        }
    }

    // MARK: Reads

    /// The item under `key`, for `caller`: access is decided before the secret is read.
    func read(_ key: ItemKey, by request: ItemRequest, in scope: Scope) throws -> Item {
        try guardedRead(key, op: .get, by: request) {
            let item = try store.read(request.reads) { try $0.get(key) }
            guard scope.shows(item.info.kind) else { throw VaultError.notFound(key) }
            logger.debug("get \(key)")
            return item
        }
    }

    /// The items under `keys` that exist in `scope`, for `caller`, all or none: each is decided
    /// first, and none is read or recorded as read when one is refused. Keys with no item in
    /// `scope` are left out.
    func readAll(_ keys: [ItemKey], by request: ItemRequest, in scope: Scope) throws -> [Item] {
        var grants: [(ItemKey, AccessControl.Grant?)] = []
        for key in keys {
            var facts = AuditFacts(item: key)
            do {
                try decide(key, op: .get, by: request, &facts)
                grants.append((key, facts.grant))
            } catch let error as VaultError {
                access.record(op: Operation.get.rawValue, item: key, result: error.code.rawValue, caller: request.caller, grant: facts.grant, reads: request.reads)
                throw error
            }
        }
        var items: [(Item, AccessControl.Grant?)] = []
        for (key, grant) in grants {
            do {
                let item = try store.read(request.reads) { try $0.get(key) }
                if scope.shows(item.info.kind) { items.append((item, grant)) }
            } catch VaultError.notFound {}
        }
        for (item, grant) in items where !access.record(op: Operation.get.rawValue, item: item.info.key, result: "ok", caller: request.caller, grant: grant, reads: request.reads) && grant != nil {
            throw VaultError.denied("\(item.info.key) is guarded, and this read could not be written to the audit log \(access.audit.path), so none was given out; vaultd's log says why")
        }
        return items.map(\.0)
    }

    /// `body`, which hands out what `key` guards (its secret, a session's token), once `caller`
    /// may read it; audited as `op`.
    func guardedRead<R>(_ key: ItemKey, op: Operation, by request: ItemRequest, _ body: () throws -> R) throws -> R {
        try audited(op, key, by: request) { facts in
            try decide(key, op: op, by: request, &facts)
            return try body()
        }
    }

    /// The access decision for `caller` reading `key`, into `facts`: how access was granted, or,
    /// when refused because code not the program's own may run in it, why no rule could match.
    func decide(_ key: ItemKey, op: Operation, by request: ItemRequest, _ facts: inout AuditFacts) throws {
        do {
            facts.grant = try access.checkRead(key, op: op, caller: request.caller, reads: request.reads)
        } catch let error as VaultError where error.code == .denied {
            facts.grant = request.caller.injection.map { "no rule matches: \($0)" }
            throw error
        }
    }

    /// Whether `key` names an item in `scope`, without reading its secret into the answer
    /// (the Secret Service's properties).
    func info(_ key: ItemKey, in scope: Scope) throws -> ItemInfo? {
        do {
            let info = try store.read { try $0.get(key) }.info
            return scope.shows(info.kind) ? info : nil
        } catch VaultError.notFound {
            return nil
        }
    }

    /// The items in `scope` whose Secret Service attributes include all of `attributes`; none
    /// while the vault is locked (their attributes are encrypted with it).
    func search(_ attributes: [String: String], in scope: Scope) throws -> [ItemInfo] {
        do {
            return try store.read { try $0.items(matching: attributes) }.filter { !$0.key.isReserved && scope.shows($0.kind) }
        } catch let error as VaultError where error.code == .locked {
            return []
        }
    }
}
