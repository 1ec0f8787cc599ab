import Synchronization
import VaultSystem

/// The sorted keys of one state of an `ItemTable`, computed once, on first use.
final class SortedKeys: Sendable {
    private let sorted = AdaptiveLock<[ItemKey]?>(nil)

    func keys(of positions: [ItemKey: UInt32]) -> [ItemKey] {
        sorted.withLock { sorted in
            if let sorted { return sorted }
            let keys = positions.keys.sorted()
            sorted = keys
            return keys
        }
    }
}
