import Synchronization

/// Whether vaultd serves the Secret Service D-Bus API and why (or why not), for `status` and
/// `doctor`.
public final class SecretServiceProviderStatus: Sendable {
    private let state = Mutex((serving: false, reason: "vaultd has not decided yet"))

    public init() {}

    public var current: (serving: Bool, reason: String) { state.withLock { $0 } }

    func set(serving: Bool, reason: String) {
        state.withLock { $0 = (serving, reason) }
    }
}
