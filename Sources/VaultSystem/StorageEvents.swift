#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Where `FileDescriptor` and `FileSystem` report the calls that change stored files: the
/// observers tests add (`StorageObserver`).
package enum StorageEvents {
    private static let installed = Atomic<Int>(0)
    private static let current = AdaptiveLock<[any StorageObserver]>([])

    /// Adds `observer` for every thread of the process, beside any other (each looks only at
    /// its own files).
    package static func add(_ observer: any StorageObserver) {
        current.withLock { $0.append(observer) }
        installed.add(1, ordering: .releasing)
    }

    package static func remove(_ observer: any StorageObserver) {
        let removed = current.withLock { observers -> Bool in
            guard let index = observers.firstIndex(where: { $0 === observer }) else { return false }
            observers.remove(at: index)
            return true
        }
        if removed { installed.subtract(1, ordering: .releasing) }
    }

    /// The observers as one, or nil when there is none.
    static var observer: Observers? {
        guard installed.load(ordering: .acquiring) > 0 else { return nil }
        let observers = current.withLock { $0 }
        return observers.isEmpty ? nil : Observers(all: observers)
    }

    /// Every observer asked in turn: the first that throws fails the change; a write is as short
    /// as the shortest any of them allows.
    struct Observers {
        let all: [any StorageObserver]

        func willChange(_ change: StorageChange) throws -> Int? {
            var allowed: Int?
            for observer in all {
                if let count = try observer.willChange(change) { allowed = min(allowed ?? count, count) }
            }
            return allowed
        }

        func didChange(_ change: StorageChange) {
            for observer in all { observer.didChange(change) }
        }
    }
}
