#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

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

    /// The lock file, a private file (`FileDescriptor.openPrivateFile`): never through a symbolic
    /// link (whose target `O_CREAT` would create), never waiting on a FIFO, a regular file of the
    /// user's with mode 0600.
    private func open() throws -> FileDescriptor {
        do {
            return try FileDescriptor.openPrivateFile(path, O_RDWR)
        } catch let problem as UntrustedPath {
            throw VaultError.insecurePermissions(path: path, detail: "\(problem)")
        } catch let error as Errno {
            throw VaultError.storage(operation: "open the lock file for", path: path, errno: error)
        }
    }
}
