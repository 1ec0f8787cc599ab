#if canImport(Glibc)
import Glibc
#endif
import VaultCore

/// An exclusive `flock` on `<vault>.lock`, so writers in different processes take turns.
/// A second writer polls for up to `timeout` seconds, then fails with `VaultError.busy`.
struct VaultFileLock {
    let path: String
    let timeout: Double

    init(vaultPath: String, timeout: Double) {
        path = vaultPath + ".lock"
        self.timeout = timeout
    }

    func withLock<R>(vaultPath: String, _ body: () throws -> R) throws -> R {
        let fd = try open()
        defer { fd.close() }
        let deadline = Clock.monotonicSeconds() + timeout
        var pause: UInt32 = 1_000
        while try !AtomicFileWriter.storage("lock", vaultPath, { try fd.tryLockExclusive() }) {
            if Clock.monotonicSeconds() >= deadline { throw VaultError.busy(path: vaultPath) }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        defer { fd.unlock() }
        return try body()
    }

    /// The lock file, created 0600 if missing: never through a symbolic link (whose target
    /// `O_CREAT` would create), never waiting on a FIFO, and only a regular file of the user's.
    private func open() throws -> FileDescriptor {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, mode: 0o600)
        } catch let error as Errno where error.rawValue == ELOOP {
            throw VaultError.insecurePermissions(path: path, detail: "it is a symbolic link; remove it (vault makes it again)")
        } catch let error as Errno {
            throw VaultError.storage(operation: "open the lock file for", path: path, errno: error)
        }
        do {
            let status = try AtomicFileWriter.storage("inspect the lock file", path) { try fd.status() }
            guard status.isRegularFile else {
                throw VaultError.insecurePermissions(path: path, detail: "it is not a regular file; remove it (vault makes it again)")
            }
            guard status.owner == FileSystem.currentUserID else {
                throw VaultError.insecurePermissions(path: path, detail: "it is owned by uid \(status.owner), not by you (uid \(FileSystem.currentUserID))")
            }
            return fd
        } catch {
            fd.close()
            throw error
        }
    }
}
