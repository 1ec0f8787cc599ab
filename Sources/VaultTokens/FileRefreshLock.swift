#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// `RefreshLock` on a lock file next to the store (`<vault>.refresh.lock` for the file store):
/// one byte per session, at an offset from a stable hash of its key, locked with an
/// open-file-description lock (`F_OFD_SETLK`), so two vaultd on one vault file (or two refreshers
/// in one process) exclude each other per session while different sessions refresh in parallel
/// (two keys sharing a byte only take turns). `withWholeFile` locks every byte at once: what a
/// migration holds while it copies sessions away. Waiting polls with a growing pause (there is
/// no blocking OFD lock with a timeout). The file holds no data; it is created 0600, in a
/// directory created 0700, and never opened through a symlink.
public struct FileRefreshLock: RefreshLock {
    public let path: String

    public init(path: String) { self.path = path }

    public func withLock<R>(_ key: ItemKey, until deadline: Double, _ body: () throws -> R) throws -> R {
        try locked(start: Self.offset(of: key), length: 1, until: deadline, body)
    }

    /// Holds every session's lock (waiting for refreshes in flight) while `body` runs.
    public func withWholeFile<R>(until deadline: Double, _ body: () throws -> R) throws -> R {
        try locked(start: 0, length: 0, until: deadline, body)
    }

    /// The byte for `key`: FNV-1a of service, NUL, account, from 1 to 2^30 (0 is never used alone).
    static func offset(of key: ItemKey) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in Array(key.service.utf8) + [0] + Array(key.account.utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int(hash % (1 << 30)) + 1
    }

    private func locked<R>(start: Int, length: Int, until deadline: Double, _ body: () throws -> R) throws -> R {
        let fd = try open()
        defer { fd.close() }  // closing releases the lock
        var pause: UInt32 = 1_000
        while try !storage("lock", { try fd.tryLockRange(start: start, length: length) }) {
            if Clock.monotonicSeconds() >= deadline { throw VaultError.busy(path: path) }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        return try body()
    }

    private func open() throws -> FileDescriptor {
        try storage("create the directory of") { try FileSystem.createDirectories(FileSystem.parentDirectory(of: path), mode: 0o700) }
        return try storage("open") { try FileDescriptor.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600) }
    }

    private func storage<T>(_ operation: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as Errno {
            throw VaultError.storage(operation: "\(operation) the refresh lock", path: path, errno: error)
        }
    }
}
