import VaultCore
import VaultProtocol

/// allow, disallow, rules, audit, approve_next, approve_answer: access rules, the audit log and
/// the approver (`AccessControl`).
extension RequestDispatcher {
    func allow(_ request: AccessRuleRequest, _ context: RequestContext) throws -> ResultBody {
        let item = try ItemKey(service: request.service, account: request.account)
        context.item = item
        let path = try Self.programPath(request.path)
        guard let hash = ExecutableHashes.shared.hash(ofFile: path) else {
            throw VaultError.invalidInput("\(path) is not a regular file vaultd can read, so it cannot be pinned: name the program's file")
        }
        // Loosening the rules of an item that needs confirmation needs the approver too, or any
        // program could allow itself.
        if try access.confirmAll || access.rules(of: item)?.confirm == true {
            try access.askApprover(op: .allow, item: item, context)
        }
        return Self.result(rules: AccessRulesBody(try access.allow(item, path: path, hash: hash), item: item))
    }

    func disallow(_ request: AccessRuleRequest, _ context: RequestContext) throws -> ResultBody {
        let item = try ItemKey(service: request.service, account: request.account)
        context.item = item
        guard let given = request.path, given.hasPrefix("/") else { throw VaultError.invalidInput("disallow takes the program's absolute path") }
        // The file may be gone: match the path as given and as it resolves now.
        let paths = Set([given, PeerProcess.realPath(given)].compactMap { $0 })
        var removed = false
        let entry = try access.updateRules(item) { entry in
            let before = entry.allow.count
            entry.allow.removeAll { paths.contains($0.path) }
            removed = entry.allow.count < before
        }
        guard removed else {
            throw VaultError.invalidInput("no rule allows \(given.replacingControlCharacters()) to read \(item); vaultctl rules \(item.service.shellQuoted) \(item.account.shellQuoted) lists them")
        }
        return Self.result(rules: AccessRulesBody(entry, item: item))
    }

    func rules(_ request: AccessRuleRequest) throws -> ResultBody {
        let item = try ItemKey(service: request.service, account: request.account)
        return Self.result(rules: AccessRulesBody(try access.rules(of: item), item: item))
    }

    /// The audit records since `since` or after `after`; when there are none and `wait` is
    /// given, waits (bounded) for the next one.
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
            guard let key = try store.perform({ try AuditKey.get(in: $0, creating: false) }) else { return Self.result(audit: []) }
            let (records, unreadable) = try access.audit.records(key: key, after: after)
            if unreadable > 0 { logger.warning("\(unreadable) line(s) of the audit log \(access.audit.path) could not be opened (damaged, or sealed under another key)") }
            let left = deadline - Clock.monotonicSeconds()
            if !records.isEmpty || left <= 0 { return Self.result(audit: records) }
            access.audit.wait(ticket, seconds: left)
            StoreCheckScope.checkAgain()  // it waited: the key is read anew (another process may have replaced it)
        }
    }

    func approveNext(_ request: ApprovalWait, _ context: RequestContext) throws -> ResultBody {
        guard let peer = context.peer else { throw VaultError.invalidInput("approve_next needs a connection that stays open") }
        let wait = min(max(request.wait ?? 20, 0), 25)
        var result = ResultBody()
        result.approval = access.broker.next(approver: ObjectIdentifier(peer), hungUp: { peer.hasHungUp }, seconds: wait)
        return result
    }

    func approveAnswer(_ request: ApprovalAnswer) throws -> ResultBody {
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
        guard access.broker.answer(request.id, answer) else {
            throw VaultError.invalidInput("request \(request.id) is no longer waiting for an answer (answered, timed out, or its caller gave up)")
        }
        return ResultBody()
    }

    /// An absolute path, resolved (symbolic links, `..`) to the file a caller's /proc/PID/exe shows.
    static func programPath(_ given: String?) throws -> String {
        guard let given, given.hasPrefix("/") else { throw VaultError.invalidInput("name the program by its absolute path") }
        guard let resolved = PeerProcess.realPath(given) else {
            throw VaultError.invalidInput("\(given.replacingControlCharacters()) does not exist: name the program's file")
        }
        return resolved
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
                  allow: (entry?.allow ?? []).map { Program(path: $0.path, sha256: $0.sha256, added: $0.added) })
    }
}
