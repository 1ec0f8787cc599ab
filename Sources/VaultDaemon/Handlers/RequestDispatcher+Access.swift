import VaultCore
import VaultProtocol

/// allow, disallow, rules, audit, approve_next, approve_answer: access rules, the audit log and
/// the approver (`AccessControl`).
extension RequestDispatcher {
    func allow(_ request: AccessRuleRequest, _ asking: ItemRequest) throws -> ResultBody {
        let item = try ItemKey(service: request.service, account: request.account)
        return Self.result(rules: AccessRulesBody(try items.allow(item, program: request.path ?? "", interpreter: request.interpreter, anyCaller: request.anyCaller == true, by: asking), item: item))
    }

    func disallow(_ request: AccessRuleRequest, _ asking: ItemRequest) throws -> ResultBody {
        let item = try ItemKey(service: request.service, account: request.account)
        return Self.result(rules: AccessRulesBody(try items.disallow(item, program: request.path, by: asking), item: item))
    }

    func rules(_ request: AccessRuleRequest) throws -> ResultBody {
        let item = try ItemKey(service: request.service, account: request.account)
        return Self.result(rules: AccessRulesBody(try items.rules(of: item), item: item))
    }

    /// The audit records since `since` or after `after`; when there are none and `wait` is
    /// given, waits (bounded) for the next one. With them, what checking every record's chain
    /// found (`AuditChain`): records deleted, replayed, rearranged, cut off or rolled back.
    func audit(_ request: AuditRequest) throws -> ResultBody {
        var after = Int64.min
        for (field, text) in [("since", request.since), ("after", request.after)] {
            guard let text else { continue }
            guard let time = Timestamp.microseconds(rfc3339: text) else {
                throw VaultError.invalidInput("'\(field)' must be an RFC 3339 time such as 2026-01-31T12:00:00Z")
            }
            after = max(after, field == "since" ? time - 1 : time)
        }
        let deadline = Clock.monotonicSeconds() + min(max(request.wait ?? 0, 0), 25)
        while true {
            let ticket = access.audit.ticket()
            let found = try store.perform { store in try AuditKey.get(in: store, creating: false).map { ($0, try AuditHeads.load(from: store)) } }
            guard let (key, heads) = found else { return Self.result(audit: []) }
            let (records, unreadable, problems) = try access.audit.records(key: key, after: after, heads: heads)
            if unreadable > 0 { logger.warning("\(unreadable) line(s) of the audit log \(access.audit.path) could not be opened (damaged, or sealed under another key)") }
            let left = deadline - Clock.monotonicSeconds()
            if !records.isEmpty || !problems.isEmpty || left <= 0 {
                var result = Self.result(audit: records)
                result.problems = problems.isEmpty ? nil : problems
                return result
            }
            access.audit.wait(ticket, seconds: left)
        }
    }

    /// The next request for this approver. A connection's first `approve_next` carries the
    /// approval secret, which makes it an approver until it closes; without it, only an approver's.
    func approveNext(_ request: ApprovalWait, _ caller: CallerIdentity, _ peer: PeerProcess?) throws -> ResultBody {
        guard let peer else { throw VaultError.invalidInput("approve_next needs a connection of its own, used only by the process that opened it") }
        let approver = ObjectIdentifier(peer)
        if !access.broker.isApprover(approver) {
            guard let secret = request.secret else {
                throw VaultError.denied("this connection is not an approver: its first approve_next carries the approval secret ('vaultctl approve' asks for it)")
            }
            try access.registerApprover(approver, secret: secret, caller: caller, hungUp: { peer.hasHungUp })
        }
        let wait = min(max(request.wait ?? 20, 0), 25)
        var result = ResultBody()
        result.approval = access.broker.next(approver: approver, seconds: wait)
        return result
    }

    /// An answer counts only from the approver the request was handed to.
    func approveAnswer(_ request: ApprovalAnswer, _ peer: PeerProcess?) throws -> ResultBody {
        let answer: ApprovalBroker.Answer
        switch request.answer {
        case "once": answer = .once
        case "always": answer = .always
        case "deny": answer = .deny
        case "minutes":
            guard let minutes = request.minutes, (1...1440).contains(minutes) else {
                throw VaultError.invalidInput("'minutes' must be a whole number of minutes from 1 to 1440")
            }
            answer = .minutes(minutes)
        default:
            throw VaultError.invalidInput("answer must be once, minutes, always or deny, got '\(String(request.answer.prefix(40)).replacingControlCharacters())'")
        }
        guard let peer, access.broker.isApprover(ObjectIdentifier(peer)) else {
            throw VaultError.denied("only an approver answers requests: run 'vaultctl approve'")
        }
        guard access.broker.answer(request.id, answer, from: ObjectIdentifier(peer)) else {
            throw VaultError.invalidInput("request \(request.id) is not waiting for this approver's answer (answered, timed out, its caller gave up, or handed to another approver)")
        }
        return ResultBody()
    }

    func setApprovalSecret(_ change: ApprovalSecretChange, _ caller: CallerIdentity) throws -> ResultBody {
        try access.setApprovalSecret(change.new, proof: change.secret, parameters: catalog.configuration.kdfParameters, caller: caller)
        return ResultBody(message: "the approval secret is set: 'vaultctl approve' asks for it")
    }
}

extension RequestDispatcher {
    static func result(rules: AccessRulesBody? = nil, audit: [AuditEntryBody]? = nil) -> ResultBody {
        var result = ResultBody()
        result.rules = rules
        result.audit = audit
        return result
    }
}

extension AccessRulesBody {
    init(_ entry: AccessRules.Entry?, item: ItemKey) {
        self.init(service: item.service, account: item.account, confirm: entry?.confirm ?? false,
                  allow: (entry?.allow ?? []).map {
                      Program(path: $0.path, sha256: $0.sha256, added: $0.added, interpreter: $0.interpreter.map { .init(path: $0.path, sha256: $0.sha256) })
                  })
    }
}
