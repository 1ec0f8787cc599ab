import Dispatch
import VaultCore
import VaultSystem

/// Unlock's prompts (org.freedesktop.Secret.Prompt at /org/freedesktop/secrets/prompt/…).
/// vaultd shows no dialog: a prompt completes (`Completed(false, unlocked objects)`) once the
/// vault is unlocked by other means ('vaultctl unlock', a passphrase source), or is dismissed
/// (`Completed(true, [])`) by `Dismiss` or after `timeout` seconds, so no client waits forever.
/// A prompt belongs to the connection that got it from Unlock, and its Completed signal goes to
/// that connection only.
final class PromptObject: BusObject {
    enum Method: String, CaseIterable {
        case prompt = "Prompt"
        case dismiss = "Dismiss"
    }

    static let interface = "org.freedesktop.Secret.Prompt"
    /// Prompts one connection may hold, and all of them together. One never started is
    /// dropped after `timeout` too.
    static let perCaller = 64
    static let maxPrompts = 1024

    private struct Pending {
        let owner: String
        let objects: [String]
        /// Whether `Prompt` was called (and the time-out that dismisses it is running).
        var started = false
    }

    private let prompts = AdaptiveLock([String: Pending]())
    private let store: ActiveStore
    private let callers: CallerRegistry
    private let signals: BusSignals
    private let queue: DispatchQueue
    private let newPath: @Sendable (String) -> String
    /// Seconds a prompt waits for the vault to be unlocked before it is dismissed.
    let timeout: Double

    init(store: ActiveStore, callers: CallerRegistry, signals: BusSignals, queue: DispatchQueue, timeout: Double,
         newPath: @escaping @Sendable (String) -> String) {
        self.store = store
        self.callers = callers
        self.signals = signals
        self.queue = queue
        self.timeout = timeout
        self.newPath = newPath
    }

    /// Unlock's answer: the objects at once when the vault is unlocked; otherwise a prompt for them.
    func unlock(_ objects: [String], caller: String) throws -> BusValue {
        let lockable = objects.filter(SecretServicePath.isLockable)
        if try !store.read({ $0.status().isLocked }) {
            return .tuple([.objectPaths(lockable), .objectPath(SecretServicePath.none)])
        }
        let path = newPath(SecretServicePath.promptPrefix)
        let made = prompts.withLock { prompts -> Bool in
            guard prompts.count < Self.maxPrompts, prompts.values.count(where: { $0.owner == caller }) < Self.perCaller else { return false }
            prompts[path] = Pending(owner: caller, objects: lockable)
            return true
        }
        guard made else { throw BusError.limitsExceeded("too many prompts open (at most \(Self.perCaller) per connection): complete or dismiss them") }
        // Added, then the caller asked for (as for sessions, `SessionObject.open`).
        guard callers.isOnBus(caller) else {
            prompts.withLock { _ = $0.removeValue(forKey: path) }
            throw BusError.failed("the caller left the bus")
        }
        // A prompt nobody starts goes after the time-out too (a started one has its own).
        queue.asyncAfter(deadline: .now() + timeout) { [self] in
            prompts.withLock { prompts in
                if prompts[path]?.started == false { prompts[path] = nil }
            }
        }
        return .tuple([.objectPaths([]), .objectPath(path)])
    }

    func call(_ method: Method, _ request: BusRequest) throws -> BusReply {
        let path = request.path
        guard let prompt = prompts.withLock({ $0[path] }), prompt.owner == request.sender else {
            throw BusError.noSuchObject(path)
        }
        switch method {
        case .prompt:
            guard !prompt.started else { return BusReply() }
            prompts.withLock { $0[path]?.started = true }
            // Paths are never reused: once the prompt completed, this finds nothing to do.
            queue.asyncAfter(deadline: .now() + timeout) { [self] in complete(path, dismissed: true) }
            // After this call's answer: Completed must not reach the client before it.
            return BusReply(afterAnswer: { [self] in completeStarted() })
        case .dismiss:
            return BusReply(afterAnswer: { [self] in complete(path, dismissed: true) })
        }
    }

    /// Once the vault is unlocked, every prompt that was started completes.
    func completeStarted() {
        guard let locked = try? store.read({ $0.status().isLocked }), !locked else { return }
        for path in prompts.withLock({ $0.filter(\.value.started).map(\.key) }) {
            complete(path, dismissed: false)
        }
    }

    /// Ends the prompt at `path` (if still open) with Completed, sent to its owner only.
    private func complete(_ path: String, dismissed: Bool) {
        guard let prompt = prompts.withLock({ $0.removeValue(forKey: path) }) else { return }
        signals.emit(from: path, interface: Self.interface, "Completed",
                     .tuple([.boolean(dismissed), .variant(.objectPaths(dismissed ? [] : prompt.objects))]), to: prompt.owner)
    }

    /// `owner` left the bus: its prompts go, uncompleted.
    func dropAll(of owner: String) {
        prompts.withLock { $0 = $0.filter { $0.value.owner != owner } }
    }

    var count: Int { prompts.withLock { $0.count } }
}
