#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CVaultShims
import Synchronization
import VaultClient
import VaultCore
import VaultSystem

/// Watches the sessions that references name, for `run --on-refresh` and `inject --watch`, on a
/// thread of its own that owns the run's one `VaultConnection` from then on. It asks vaultd for
/// each session's token with a min-ttl of half the token's lifetime (as first seen), at most 60 s
/// (`vaultctl token`'s default): vaultd refreshes it then (single-flight, as always), and a token
/// refreshed by anyone else (vaultd's --refresh-ahead, another client) is seen by the same poll.
/// It polls at that point before each expiry, and at least every 30 s, so a new token reaches
/// the program before the old one expires. When a value changes it writes a byte to `notifier`;
/// `latest` holds the values.
final class TokenWatcher: Sendable {
    /// The most seconds between two polls, and between retries after a failure.
    static let longestWait = 30.0
    static let retryWait = 5.0
    /// The least seconds between two polls.
    static let shortestWait = 0.25

    private struct Watched: Sendable {
        var resolved: ResolvedReference
        /// The longest lifetime seen: what the margin is derived from.
        var lifetime: Double?
    }

    /// The connection, handed to the watcher's thread: nothing else uses it afterwards.
    private final class Handoff: @unchecked Sendable {
        let connection: VaultConnection
        init(_ connection: VaultConnection) { self.connection = connection }
    }

    private let state: AdaptiveLock<[String: Watched]>
    private let notifyEnd: FileDescriptor
    /// Readable once per change.
    let notifier: FileDescriptor

    /// `references`: by name (a variable, a placeholder), only those of sessions are watched.
    init?(_ references: [String: ResolvedReference], connection: VaultConnection) throws {
        let sessions = references.filter { $0.value.session != nil }
        guard !sessions.isEmpty else { return nil }
        var ends: [Int32] = [0, 0]
        _ = try retryingOnInterrupt { vault_pipe(&ends, O_CLOEXEC | O_NONBLOCK) }
        notifier = FileDescriptor(rawValue: ends[0])
        notifyEnd = FileDescriptor(rawValue: ends[1])
        state = AdaptiveLock(sessions.mapValues { Watched(resolved: $0, lifetime: Self.remaining($0)) })
        let handoff = Handoff(connection)
        guard DetachedThread.start(stackSize: 512 * 1024, { [self] in watch(handoff.connection) }) else {
            throw VaultError.internal("cannot start a thread to watch the sessions")
        }
    }

    /// The current value of every watched reference, by name.
    var latest: [String: ResolvedReference] { state.withLock { $0.mapValues(\.resolved) } }

    /// Drains the notifier after it was readable.
    func acknowledge() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while (buffer.withUnsafeMutableBytes { (try? notifier.read(into: $0)) ?? 0 }) > 0 {}
    }

    private static func remaining(_ resolved: ResolvedReference) -> Double? {
        resolved.token?.expiresAt.map { $0.timeIntervalSince1970 - Date().timeIntervalSince1970 }
    }

    /// Seconds before expiry at which the token is asked for again.
    private static func margin(_ watched: Watched) -> Double {
        min(60, max(0.5, (watched.lifetime ?? 120) / 2))
    }

    private func watch(_ connection: VaultConnection) {
        var lastWarning = ""
        var wait = Self.nextWait(state.withLock { $0 })
        while true {
            usleep(UInt32(wait * 1_000_000))
            var watched = state.withLock { $0 }
            var changed = false
            var failure: VaultClientError?
            for (name, entry) in watched {
                do {
                    let fresh = try connection.refreshed(entry.resolved, minTTL: Self.margin(entry))
                    guard fresh.value != entry.resolved.value else { continue }
                    let remaining = Self.remaining(fresh)
                    watched[name] = Watched(resolved: fresh, lifetime: max(entry.lifetime ?? 0, remaining ?? 0))
                    changed = true
                } catch {
                    failure = error
                }
            }
            if changed {
                state.withLock { $0 = watched }
                try? notifyEnd.writeAll([1])
            }
            wait = Self.nextWait(watched)
            if let failure {
                // Said once per kind of failure, never the token; the program keeps its current one.
                if failure.message != lastWarning { Output.error("cannot refresh a referenced session (will retry): \(failure.message)") }
                lastWarning = failure.message
                wait = min(wait, Self.retryWait)
            } else {
                lastWarning = ""
            }
        }
    }

    /// Until the earliest point at which a token is due to be asked for again.
    private static func nextWait(_ watched: [String: Watched]) -> Double {
        let now = Date().timeIntervalSince1970
        let due = watched.values.compactMap { entry in
            entry.resolved.token?.expiresAt.map { $0.timeIntervalSince1970 - margin(entry) - now }
        }
        return min(longestWait, max(shortestWait, due.min() ?? longestWait))
    }
}
