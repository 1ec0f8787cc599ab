import Synchronization
import VaultCore
import VaultProtocol

/// Requests waiting for an approver's answer, and the approvers (`vaultctl approve`
/// connections) that give it. A request is refused at once when no approver is registered, and
/// denied when no answer comes within `timeout`; an approver's long poll is bounded too.
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

    private struct Pending {
        var id: Int
        var op: String
        var item: ItemKey
        var caller: CallerIdentity
        var deadline: Double
        var shown = false
        var answer: Answer?
    }

    private struct State {
        /// Each approver's connection, by identity, and whether its peer has hung up.
        var approvers: [ObjectIdentifier: @Sendable () -> Bool] = [:]
        var pending: [Pending] = []
        var nextID = 1
    }

    let timeout: Double
    private let state = Mutex(State())
    private let requests = WakeList()
    private let answers = WakeList()

    init(timeout: Double) {
        self.timeout = timeout
    }

    var hasApprover: Bool { state.withLock { !$0.approvers.isEmpty } }

    /// Asks the approvers about `caller` reading `item`, and waits for the answer (or the timeout).
    /// Refuses at once, with what to do, when no approver is running.
    func ask(op: String, item: ItemKey, caller: CallerIdentity) throws -> Answer {
        let id: Int?? = state.withLock { state in
            // An approver that went away while blocked in its long poll has not been removed yet.
            state.approvers = state.approvers.filter { !$0.value() }
            guard !state.approvers.isEmpty else { return nil }
            guard state.pending.count(where: { $0.caller.pid == caller.pid && $0.answer == nil }) < Self.maxPendingPerCaller else { return .some(nil) }
            defer { state.nextID += 1 }
            state.pending.append(Pending(id: state.nextID, op: op, item: item, caller: caller, deadline: Clock.monotonicSeconds() + timeout))
            return state.nextID
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

    /// For an approver: the next request nobody has been shown, waiting up to `seconds`.
    func next(approver: ObjectIdentifier, hungUp: @escaping @Sendable () -> Bool, seconds: Double) -> ApprovalBody? {
        let deadline = Clock.monotonicSeconds() + seconds
        state.withLock { $0.approvers[approver] = hungUp }
        while true {
            let ticket = requests.ticket()
            let now = Clock.monotonicSeconds()
            let found: ApprovalBody? = state.withLock { state in
                guard let index = state.pending.firstIndex(where: { !$0.shown && $0.answer == nil && $0.deadline > now }) else { return nil }
                state.pending[index].shown = true
                let pending = state.pending[index]
                return ApprovalBody(
                    id: pending.id, op: pending.op, service: pending.item.service, account: pending.item.account, pid: pending.caller.pid,
                    exe: pending.caller.executable, script: pending.caller.script, cwd: pending.caller.workingDirectory,
                    unit: pending.caller.unit, expiresIn: max(0, pending.deadline - now))
            }
            if let found { return found }
            guard deadline > now else { return nil }
            _ = requests.wait(ticket, seconds: deadline - now)
        }
    }

    /// Records an approver's answer; false when the request is no longer waiting.
    func answer(_ id: Int, _ answer: Answer) -> Bool {
        let found = state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.id == id && $0.answer == nil }) else { return false }
            state.pending[index].answer = answer
            return true
        }
        if found { answers.wakeAll() }
        return found
    }

    /// An approver's connection closed. Requests it was shown go back to the others, or, when it
    /// was the last approver, are denied now rather than at their timeout.
    func remove(approver: ObjectIdentifier) {
        let removed = state.withLock { state in
            guard state.approvers.removeValue(forKey: approver) != nil else { return false }
            for index in state.pending.indices { state.pending[index].shown = false }
            return true
        }
        if removed {
            requests.wakeAll()
            answers.wakeAll()
        }
    }
}
