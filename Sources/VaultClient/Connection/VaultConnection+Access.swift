import VaultCore
internal import VaultProtocol

/// Access rules, the audit log and approval. Each throws `VaultClientError` (`.denied` when a
/// rule or the approver refuses).
extension VaultConnection {
    /// Allows the program at `path` (absolute) to read the item; vaultd pins its content hash now.
    /// For a script, also the interpreter that runs it: `interpreter` (absolute), or the one its
    /// `#!` line names.
    @discardableResult
    /// `anyCaller`: the program serves whoever runs it (vault's own clients, a bare interpreter),
    /// and every program that can run it is meant to read the item.
    public func allow(service: String, account: String, program path: String, interpreter: String? = nil, anyCaller: Bool = false) throws(VaultClientError) -> ItemRules {
        try rulesAnswer(perform(.allow(AccessRuleRequest(service: service, account: account, path: path, interpreter: interpreter, anyCaller: anyCaller ? true : nil))))
    }

    @discardableResult
    public func disallow(service: String, account: String, program path: String) throws(VaultClientError) -> ItemRules {
        try rulesAnswer(perform(.disallow(AccessRuleRequest(service: service, account: account, path: path))))
    }

    public func rules(service: String, account: String) throws(VaultClientError) -> ItemRules {
        try rulesAnswer(perform(.rules(AccessRuleRequest(service: service, account: account))))
    }

    /// Like `set` (`replacing`) or `add`; `confirm`: from now on each access to the item needs
    /// an approver's answer.
    @discardableResult
    public func write(replacing: Bool, service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil,
                      confirm: Bool) throws(VaultClientError) -> ItemMetadata {
        let write = ItemWrite(service: service, account: account, secret: secret, label: label, comment: comment, confirm: confirm)
        guard let item = try perform(replacing ? .set(write) : .add(write)).item else {
            throw .malformedAnswer("a required part of the answer is missing")
        }
        return try ItemMetadata(wire: item)
    }

    /// Audit records since `since` (RFC 3339) or after the record timed `after`, oldest first;
    /// with `wait`, vaultd waits up to that many seconds (at most 25) for one when there is none.
    public func audit(since: String? = nil, after: String? = nil, wait: Double? = nil) throws(VaultClientError) -> [AuditRecord] {
        try checkedAudit(since: since, after: after, wait: wait).records
    }

    /// `audit`, and what vaultd found checking the log's chains: each problem a sentence naming
    /// the records deleted, replayed, rearranged, cut off or rolled back (empty: the log holds).
    public func checkedAudit(since: String? = nil, after: String? = nil, wait: Double? = nil) throws(VaultClientError) -> (records: [AuditRecord], problems: [String]) {
        let result = try perform(.audit(AuditRequest(since: since, after: after, wait: wait)))
        return ((result.audit ?? []).map(AuditRecord.init(wire:)), result.problems ?? [])
    }

    /// Waits up to `wait` seconds for a request to answer; nil when none came. The first call of
    /// a connection carries the approval secret the person typed (`secret`), which makes the
    /// connection an approver until it closes.
    public func nextApproval(wait: Double = 20, secret: SecretBytes? = nil) throws(VaultClientError) -> ApprovalRequest? {
        try perform(.approveNext(ApprovalWait(wait: wait, secret: secret))).approval.map(ApprovalRequest.init(wire:))
    }

    /// Sets the approval secret to `new`; `current` is the current one or the vault's passphrase
    /// (which setting the first one needs on the file store).
    public func setApprovalSecret(_ new: SecretBytes, current: SecretBytes?) throws(VaultClientError) {
        _ = try perform(.setApprovalSecret(ApprovalSecretChange(secret: current, new: new)))
    }

    public func answerApproval(_ id: Int, _ decision: ApprovalDecision) throws(VaultClientError) {
        let answer: ApprovalAnswer = switch decision {
        case .once: ApprovalAnswer(id: id, answer: "once")
        case .minutes(let minutes): ApprovalAnswer(id: id, answer: "minutes", minutes: minutes)
        case .always: ApprovalAnswer(id: id, answer: "always")
        case .deny: ApprovalAnswer(id: id, answer: "deny")
        }
        _ = try perform(.approveAnswer(answer))
    }

    private func rulesAnswer(_ result: ResultBody) throws(VaultClientError) -> ItemRules {
        guard let rules = result.rules else { throw .malformedAnswer("a required part of the answer is missing") }
        return ItemRules(wire: rules)
    }
}
