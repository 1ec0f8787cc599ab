import VaultProtocol

/// What an operation implies for vaultd's policy, stated once for every operation: the switch in
/// `Operation.traits` is exhaustive, so an operation added to the protocol does not compile until
/// it says whether it is audited, touches items, postpones auto-lock and needs its caller.
struct OperationTraits: Sendable, Equatable {
    /// Every outcome is written to the audit log once the operation named its item (`ItemService`).
    var audited: Bool
    /// A `locked` answer says why the store is locked, after trying a fixed passphrase source
    /// again: requests for items, not the ones that unlock or move the store.
    var touchesItems: Bool
    /// Auto-lock (`--lock-after`) counts from its start and its end. Asking how vaultd is,
    /// locking, sign-in steps that only talk to a provider, the audit log and the approver's own
    /// requests do not; neither does anything vaultd does by itself (background refresh).
    var postponesAutoLock: Bool
    /// The answer depends on who asks, or records it: the door establishes the caller first.
    var identifiesCaller: Bool
    /// It hands out what an item guards (a secret, a session's token): a guarded item is not
    /// handed out when its audit record cannot be written.
    var handsOutSecret = false

    static let itemRead = OperationTraits(audited: true, touchesItems: true, postponesAutoLock: true, identifiesCaller: true, handsOutSecret: true)
    static let itemChange = OperationTraits(audited: true, touchesItems: true, postponesAutoLock: true, identifiesCaller: true)
    static let itemUse = OperationTraits(audited: false, touchesItems: true, postponesAutoLock: true, identifiesCaller: false)
    static let storeChange = OperationTraits(audited: false, touchesItems: false, postponesAutoLock: true, identifiesCaller: false)
    static let inspection = OperationTraits(audited: false, touchesItems: false, postponesAutoLock: false, identifiesCaller: false)
    /// The approver's own requests: `AccessControl` records whether they proved the approval
    /// secret, and they are no use of the items.
    static let approval = OperationTraits(audited: false, touchesItems: false, postponesAutoLock: false, identifiesCaller: true)
    /// Reading the audit log and answering a request: they need the vault unlocked, are no use
    /// of the items.
    static let review = OperationTraits(audited: false, touchesItems: true, postponesAutoLock: false, identifiesCaller: false)
}

extension Operation {
    var traits: OperationTraits {
        switch self {
        // resolve_credential's records are those of the reads it makes: get, foreign_get, token.
        case .get, .token, .foreignGet, .resolveCredential, .kvGet: .itemRead
        case .add, .set, .delete, .foreignSet, .foreignDelete, .allow, .disallow, .kvPut, .kvDelete: .itemChange
        case .list, .login, .signup, .logout, .importSession, .devicePoll, .foreignList, .rules: .itemUse
        // A remote's record and its cache are items; its listings and history hand out no secret.
        case .remoteAdd, .remoteList, .remoteRemove, .remoteLogin, .kvHistory, .kvList: .itemUse
        // A space's record is an item; its items are shared only when they have no rules.
        case .spaceCreate, .spaceJoin, .spaceAdmit, .spaceAdd, .spaceRemove, .spaceStatus, .spaceRemoveDevice, .spaceSync, .spaceResolve: .itemUse
        case .unlock, .changePassphrase, .migrate: .storeChange
        case .status, .doctor, .lock, .resetPassword, .deviceStart: .inspection
        case .approveNext, .setApprovalSecret: .approval
        case .audit, .approveAnswer: .review
        }
    }
}
