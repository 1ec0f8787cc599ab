import Synchronization
import VaultSystem

/// The positions of one state of an `ItemTable`'s entries in key order, computed once, on first
/// use: a page of a listing reads its entries by position, with no lookup by key.
final class SortedPositions: Sendable {
    private let sorted = AdaptiveLock<[UInt32]?>(nil)

    func positions<Payload>(of entries: [ItemTable<Payload>.Entry]) -> [UInt32] {
        sorted.withLock { sorted in
            if let sorted { return sorted }
            let positions = (0..<UInt32(entries.count)).sorted { entries[Int($0)].info.key < entries[Int($1)].info.key }
            sorted = positions
            return positions
        }
    }
}
