import Dispatch
import Synchronization
import VaultCore
import VaultSystem

/// Warnings about events a local client can cause at will (refused or evicted connections,
/// unfinished requests, accept failures), at most one line per `interval`: the first event after a
/// quiet interval is logged in full, later ones are counted by kind and summarized once the
/// interval has passed. A loop of connections cannot grow the log without bound.
final class RateLimitedLog: Sendable {
    private struct State {
        var lastLine: Double?
        /// Counts by kind, in the order the kinds first occurred.
        var pending: [(kind: String, count: Int)] = []
        var flushScheduled = false
    }

    private let logger: Logger
    private let interval: Double
    private let queue = DispatchQueue(label: "vaultd.rate-limited-log")
    private let state = AdaptiveLock(State())

    init(logger: Logger, interval: Double = 5) {
        self.logger = logger
        self.interval = interval
    }

    /// Records one event: `kind` names it in summaries ("connections refused: …"), `detail` is
    /// the full line when it is logged on its own.
    func record(_ kind: String, detail: @autoclosure () -> String) {
        let now = Clock.monotonicSeconds()
        enum Action { case log, schedule(Double), nothing }
        let action: Action = state.withLock { state in
            if state.pending.isEmpty, state.lastLine.map({ now - $0 >= interval }) ?? true {
                state.lastLine = now
                return .log
            }
            if let index = state.pending.firstIndex(where: { $0.kind == kind }) {
                state.pending[index].count += 1
            } else {
                state.pending.append((kind, 1))
            }
            guard !state.flushScheduled else { return .nothing }
            state.flushScheduled = true
            return .schedule(max(0, (state.lastLine ?? now) + interval - now))
        }
        switch action {
        case .log: logger.warning(detail())
        case .schedule(let delay): queue.asyncAfter(deadline: .now() + delay) { [self] in flush() }
        case .nothing: break
        }
    }

    private func flush() {
        let (pending, elapsed): ([(kind: String, count: Int)], Double) = state.withLock { state in
            let now = Clock.monotonicSeconds()
            defer {
                state.pending = []
                state.flushScheduled = false
                state.lastLine = now
            }
            return (state.pending, now - (state.lastLine ?? now))
        }
        guard !pending.isEmpty else { return }
        let counts = pending.map { "\($0.count) × \($0.kind)" }.joined(separator: "; ")
        logger.warning("in the last \(Int(elapsed.rounded())) s: \(counts)")
    }
}
