import Synchronization
import VaultCore
import VaultProtocol
import VaultSystem

/// Requests waiting for an approver's answer, and the approvers (`vaultctl approve` connections)
/// that give it. A connection becomes an approver only once it proved the approval secret
/// (`AccessControl.registerApprover`); a request is handed to one approver at a time, and only
/// that approver's answer for that request counts, by an id drawn at random (never guessed from
/// another). An approver is never handed a request of its own process or of one of its
/// ancestors: a program cannot approve itself by starting `vaultctl approve` under it. A request
/// is refused at once when no approver is registered, and denied when no answer comes within
/// `timeout`; an approver's long poll is bounded too.
final class ApprovalBroker: Sendable {
    enum Answer: Sendable, Equatable {
        case once
        case minutes(Int)
        case always
        case deny
        /// No answer within the timeout.
        case timedOut
        /// Every approver disconnected before answering.
        case approverGone
        /// The caller's process has `maxPendingPerCaller` requests waiting already: refused at
        /// once, so one process cannot hold every thread that answers requests.
        case tooManyWaiting
    }

    /// Requests of one process (by pid) that may wait for the approver at once.
    static let maxPendingPerCaller = 8
    /// Request ids are drawn from 1 ..< 2^53, which a JSON number carries exactly.
    static let idRange = 1...(1 << 53) - 1

    private struct Pending {
        var id: Int
        var op: String
        var item: ItemKey
        var caller: CallerIdentity
        var ancestry: [ProcessBody]
        var deadline: Double
        /// The approver it was handed to; nil while waiting for one.
        var shownTo: ObjectIdentifier?
        var answer: Answer?
    }

    /// A connection that proved the approval secret.
    private struct Approver {
        /// Whether its peer has hung up (it may be blocked in a long poll).
        var hungUp: @Sendable () -> Bool
        /// Its process and that process's ancestors when it registered: requests of these are
        /// never handed to it.
        var excluded: Set<Int32>
    }

    private struct State {
        var approvers: [ObjectIdentifier: Approver] = [:]
        var pending: [Pending] = []
    }

    let timeout: Double
    private let state = AdaptiveLock(State())
    private let requests = WakeList()
    private let answers = WakeList()

    init(timeout: Double) {
        self.timeout = timeout
    }

    var hasApprover: Bool { state.withLock { !$0.approvers.isEmpty } }

    func isApprover(_ approver: ObjectIdentifier) -> Bool { state.withLock { $0.approvers[approver] != nil } }

    /// Makes `approver` (a connection of process `pid`) an approver until it is removed.
    func register(_ approver: ObjectIdentifier, pid: Int32?, hungUp: @escaping @Sendable () -> Bool) {
        let excluded = pid.map { Set([$0] + ProcessAncestry.ancestors(of: $0)) } ?? []
        state.withLock { $0.approvers[approver] = Approver(hungUp: hungUp, excluded: excluded) }
        requests.wakeAll()
    }

    /// Asks the approvers about `caller` reading `item`, and waits for the answer (or the timeout).
    /// Refuses at once, with what to do, when no approver is running.
    func ask(op: String, item: ItemKey, caller: CallerIdentity) throws -> Answer {
        // Only for a caller identified by a pidfd: a pid alone may name another process by now.
        let ancestry = caller.executable == nil ? [] : caller.pid.map(ProcessAncestry.described) ?? []
        let id: Int?? = state.withLock { state in
            // An approver that went away while blocked in its long poll has not been removed yet.
            state.approvers = state.approvers.filter { !$0.value.hungUp() }
            guard !state.approvers.isEmpty else { return nil }
            guard state.pending.count(where: { $0.caller.pid == caller.pid && $0.answer == nil }) < Self.maxPendingPerCaller else { return .some(nil) }
            var id = Int.random(in: Self.idRange)
            while state.pending.contains(where: { $0.id == id }) { id = Int.random(in: Self.idRange) }
            state.pending.append(Pending(id: id, op: op, item: item, caller: caller, ancestry: ancestry, deadline: Clock.monotonicSeconds() + timeout))
            return id
        }
        guard let found = id else {
            throw VaultError.denied("\(item) needs approval and no approver is running: run 'vaultctl approve' in a terminal (or tmux pane) and try again, or allow the program with: vaultctl allow \(item.service.shellQuoted) \(item.account.shellQuoted) PROGRAM")
        }
        guard let id = found else { return .tooManyWaiting }
        requests.wakeAll()
        while true {
            let ticket = answers.ticket()
            let (answer, left): (Answer?, Double) = state.withLock { state in
                guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return (.approverGone, 0) }
                let left = state.pending[index].deadline - Clock.monotonicSeconds()
                if let answer = state.pending[index].answer {
                    state.pending.remove(at: index)
                    return (answer, 0)
                }
                if left <= 0 || state.approvers.isEmpty {
                    state.pending.remove(at: index)
                    return (left <= 0 ? .timedOut : .approverGone, 0)
                }
                return (nil, left)
            }
            if let answer { return answer }
            _ = answers.wait(ticket, seconds: left)
        }
    }

    /// For a registered approver: the next request no approver has been handed that this one
    /// may answer, waiting up to `seconds`; nil when none came.
    func next(approver: ObjectIdentifier, seconds: Double) -> ApprovalBody? {
        let deadline = Clock.monotonicSeconds() + seconds
        while true {
            let ticket = requests.ticket()
            let now = Clock.monotonicSeconds()
            let found: ApprovalBody? = state.withLock { state in
                guard let excluded = state.approvers[approver]?.excluded else { return nil }
                guard let index = state.pending.firstIndex(where: { pending in
                    pending.shownTo == nil && pending.answer == nil && pending.deadline > now && !excluded.contains(pending.caller.pid ?? 0)
                }) else { return nil }
                state.pending[index].shownTo = approver
                let pending = state.pending[index]
                return ApprovalBody(
                    id: pending.id, op: pending.op, service: pending.item.service, account: pending.item.account, pid: pending.caller.pid,
                    exe: pending.caller.executable, script: pending.caller.script, cwd: pending.caller.workingDirectory,
                    unit: pending.caller.unit, expiresIn: max(0, pending.deadline - now), ancestry: pending.ancestry)
            }
            if let found { return found }
            guard deadline > now else { return nil }
            _ = requests.wait(ticket, seconds: deadline - now)
        }
    }

    /// Records `approver`'s answer to request `id`; false unless that request is waiting and was
    /// handed to this approver.
    func answer(_ id: Int, _ answer: Answer, from approver: ObjectIdentifier) -> Bool {
        let found = state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.id == id && $0.answer == nil && $0.shownTo == approver }) else { return false }
            state.pending[index].answer = answer
            return true
        }
        if found { answers.wakeAll() }
        return found
    }

    /// An approver's connection closed. Requests it was handed go back to the others, or, when
    /// it was the last approver, are denied now rather than at their timeout.
    func remove(approver: ObjectIdentifier) {
        let removed = state.withLock { state in
            guard state.approvers.removeValue(forKey: approver) != nil else { return false }
            for index in state.pending.indices where state.pending[index].shownTo == approver { state.pending[index].shownTo = nil }
            return true
        }
        if removed {
            requests.wakeAll()
            answers.wakeAll()
        }
    }
}
