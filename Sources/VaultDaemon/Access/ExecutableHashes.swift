#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import VaultCore
import VaultCrypto
import VaultSystem

/// SHA-256 of program files, cached by device, inode, size, modification and status change
/// time: a file changed in place gets a new ctime (even when its mtime is put back with
/// `touch -d`, which sets the ctime too), a file replaced gets a new inode, so either is hashed
/// again. Files over 1 GiB are not hashed (no rule can match them).
final class ExecutableHashes: Sendable {
    static let shared = ExecutableHashes()
    static let limit = 1 << 30
    private static let capacity = 512
    private let cache = AdaptiveLock([FileStatus.Identity: String]())

    /// The lowercase hex SHA-256 of the regular file open on `fd`, read from its start.
    func hash(of fd: FileDescriptor) -> String? {
        guard let status = try? fd.status(), status.isRegularFile else { return nil }
        let key = status.identity
        if let known = cache.withLock({ $0[key] }) { return known }
        guard lseek(fd.rawValue, 0, SEEK_SET) == 0, let digest = try? SHA256.hash(reading: fd, limit: Self.limit) else { return nil }
        let hex = digest.lowercaseHex
        cache.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll() }
            cache[key] = hex
        }
        return hex
    }

    /// The hash of the file at `path`, opened without following a final symbolic link's target
    /// being swapped mid-way (the descriptor is what gets hashed); nil when it is not a readable
    /// regular file.
    func hash(ofFile path: String) -> String? {
        guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { fd.close() }
        return hash(of: fd)
    }
}
