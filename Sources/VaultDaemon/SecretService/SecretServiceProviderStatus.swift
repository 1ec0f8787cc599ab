import VaultCore
import Synchronization
import VaultSystem

/// Whether vaultd serves the Secret Service D-Bus API and why (or why not), for `status` and
/// `doctor`.
public final class SecretServiceProviderStatus: Sendable {
    private let state = AdaptiveLock((serving: false, reason: "vaultd has not decided yet"))

    public init() {}

    public var current: (serving: Bool, reason: String) { state.withLock { $0 } }

    func set(serving: Bool, reason: String) {
        state.withLock { $0 = (serving, reason) }
    }

    /// How D-Bus callers are tied to processes on this bus, once a caller was asked about.
    public var callerBinding: String? { binding.withLock { $0 } }
    private let binding = AdaptiveLock<String?>(nil)

    /// Whether the bus gave the last caller's `ProcessFD`.
    func noteCallers(processFD: Bool, trustingPIDs: Bool) {
        binding.withLock {
            $0 = processFD
                ? "the bus gives each caller's ProcessFD: a D-Bus caller is the process that opened its connection"
                : trustingPIDs
                ? "the bus gives no ProcessFD (dbus-daemon before 1.15.7) and vaultd runs with --trust-bus-pids: a D-Bus caller is bound by its pid, kept only if that process started by the time its connection came onto the bus; a program of yours that delays its connection's Hello can pass for an allowed one"
                : "the bus gives no ProcessFD (dbus-daemon before 1.15.7), so vaultd cannot tell which process holds a D-Bus connection: no rule matches a D-Bus caller (read guarded items through vaultctl, use a bus that gives ProcessFD such as dbus-broker, or accept the risk with vaultd --trust-bus-pids)"
        }
    }
}
