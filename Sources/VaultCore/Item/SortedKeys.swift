import Synchronization
import VaultSystem

/// The sorted keys of one state of an `ItemTable`, computed once, on first use.
final class SortedKeys: Sendable {
    private let sorted = AdaptiveLock<[ItemKey]?>(nil)

    func keys<Payload>(of entries: [ItemKey: ItemTable<Payload>.Entry]) -> [ItemKey] {
        sorted.withLock { sorted in
            if let sorted { return sorted }
            let keys = entries.keys.sorted()
            sorted = keys
            return keys
        }
    }
}
