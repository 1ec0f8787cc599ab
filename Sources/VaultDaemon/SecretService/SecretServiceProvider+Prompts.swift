import Dispatch
import VaultCore

/// Unlock's prompts (org.freedesktop.Secret.Prompt). vaultd shows no dialog: a prompt completes
/// (`Completed(false, unlocked objects)`) once the vault is unlocked by other means ('vaultctl
/// unlock', a passphrase source), or is dismissed (`Completed(true, [])`) by `Dismiss` or after
/// `promptTimeout` seconds, so no client waits forever. A prompt belongs to the connection that
/// got it from Unlock, and its Completed signal goes to that connection only.
extension SecretServiceProvider {
    struct PendingPrompt {
        let owner: String
        let objects: [String]
        /// Whether `Prompt` was called (and the time-out that dismisses it is running).
        var started = false
    }

    /// Prompts one connection may hold, and all of them together. One never started is
    /// dropped after `promptTimeout` too.
    static let promptsPerCaller = 64
    static let maxPrompts = 1024

    /// Unlock: the objects at once when the vault is unlocked; otherwise a prompt for them.
    func unlock(_ objects: [String], caller: String) throws -> BusValue {
        let lockable = objects.filter(exportsLockable)
        if try !store.read({ $0.status().isLocked }) {
            return .tuple([.objectPaths(lockable), .objectPath(SecretServicePath.none)])
        }
        let path = newPath(SecretServicePath.promptPrefix)
        let made = state.withLock { state -> Bool? in
            // Only for a caller still on the bus (`vanished` drops a caller's prompts with it).
            guard state.callers[caller] != nil else { return nil }
            guard state.prompts.count < Self.maxPrompts, state.prompts.values.count(where: { $0.owner == caller }) < Self.promptsPerCaller else { return false }
            state.prompts[path] = PendingPrompt(owner: caller, objects: lockable)
            return true
        }
        guard let made else { throw BusError.failed("the caller left the bus") }
        guard made else { throw BusError.limitsExceeded("too many prompts open (at most \(Self.promptsPerCaller) per connection): complete or dismiss them") }
        // A prompt nobody starts goes after the time-out too (a started one has its own).
        queue.asyncAfter(deadline: .now() + promptTimeout) { [self] in
            state.withLock { state in
                if state.prompts[path]?.started == false { state.prompts[path] = nil }
            }
        }
        return .tuple([.objectPaths([]), .objectPath(path)])
    }

    func promptMethod(_ call: BusCall) throws -> BusValue? {
        guard let prompt = state.withLock({ $0.prompts[call.path] }), prompt.owner == call.sender else {
            throw BusError.noSuchObject(call.path)
        }
        switch call.member {
        case "Prompt":
            guard !prompt.started else { return nil }
            let path = call.path
            state.withLock { $0.prompts[path]?.started = true }
            // Paths are never reused: once the prompt completed, this finds nothing to do.
            queue.asyncAfter(deadline: .now() + promptTimeout) { [self] in complete(path, dismissed: true) }
            // After this call's answer: Completed must not reach the client before it.
            call.afterAnswer = { [self] in completeStartedPrompts() }
            return nil
        case "Dismiss":
            let path = call.path
            call.afterAnswer = { [self] in complete(path, dismissed: true) }
            return nil
        default:
            throw BusError.notSupported("no method \(call.member)")
        }
    }

    /// On `queue`: once the vault is unlocked, every prompt that was started completes.
    func completeStartedPrompts() {
        guard let locked = try? store.read({ $0.status().isLocked }), !locked else { return }
        for path in state.withLock({ $0.prompts.filter(\.value.started).map(\.key) }) {
            complete(path, dismissed: false)
        }
    }

    /// On `queue`: ends the prompt at `path` (if still open) with Completed.
    private func complete(_ path: String, dismissed: Bool) {
        guard let prompt = state.withLock({ $0.prompts.removeValue(forKey: path) }) else { return }
        emit(from: path, interface: "org.freedesktop.Secret.Prompt", "Completed",
             .tuple([.boolean(dismissed), .variant(.objectPaths(dismissed ? [] : prompt.objects))]), to: prompt.owner)
    }
}
