import Synchronization
import VaultCore
import VaultSystem

/// Tells whoever listens (the Secret Service provider, so that D-Bus clients get `ItemCreated`,
/// `ItemChanged` and `ItemDeleted` for what vaultctl and other socket clients change) which
/// items a request created, changed or deleted. Listeners run on the request's thread after the
/// change is stored and must only hand work on (emitting a D-Bus signal only queues a message).
public final class ItemChangeFeed: Sendable {
    public enum Change: Sendable, Equatable {
        case created(ItemKey, ItemKind)
        case changed(ItemKey, ItemKind)
        case deleted(ItemKey)
    }

    private let listeners = AdaptiveLock<[@Sendable (Change) -> Void]>([])

    public init() {}

    public func listen(_ listener: @escaping @Sendable (Change) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    func post(_ change: Change) {
        for listener in listeners.withLock({ $0 }) { listener(change) }
    }

    /// A write's outcome: a new item has never been modified since its creation.
    func postWrite(_ info: ItemInfo, added: Bool) {
        post(added || info.created == info.modified ? .created(info.key, info.kind) : .changed(info.key, info.kind))
    }
}
