#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A call that changes stored files, as `StorageEvents` reports it.
package enum StorageChange: Sendable {
    /// `bytes` written at `offset` of the open file `fd` (`pwrite`, or `write` at its position).
    case write(fd: Int32, offset: Int, bytes: [UInt8])
    case truncate(fd: Int32, length: Int)
    /// `fsync` or `fdatasync` of a file: its data and size are durable.
    case sync(fd: Int32)
    /// `path` opened with `O_CREAT` as `fd` (new, or an existing file of that name).
    case create(path: String, fd: Int32)
    case rename(from: String, to: String)
    case link(from: String, to: String)
    case unlink(path: String)
    /// `fsync` of a directory: the names in it (creations, renames, links, removals) are durable.
    case syncDirectory(path: String)
}

/// Observes the calls that change stored files and may fail them. The seam the power-loss and
/// fault-injection tests use, as SQLite's tests use their own VFS: `FileDescriptor` and
/// `FileSystem` report each change to the observers added here, which record it or make it fail
/// (an `Errno`, or a short write). None is added outside tests; a call then costs one atomic
/// load.
package protocol StorageObserver: AnyObject, Sendable {
    /// Before a change: throws to fail it; for a write, may return fewer bytes than asked for,
    /// which the call then writes (a short write; the caller loops and asks again).
    func willChange(_ change: StorageChange) throws -> Int?
    /// After a change took effect (a write: the bytes written).
    func didChange(_ change: StorageChange)
}

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
