#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import VaultCore
import VaultSystem

/// Sets up the listening socket safely: a private directory (0700, ours, not a symbolic link,
/// nothing above it writable by others), one daemon per socket
/// (an `flock` held for the daemon's life), stale sockets replaced, the socket bound under umask 0177.
public final class SocketListener: @unchecked Sendable {
    public enum SetupError: Error, CustomStringConvertible {
        case alreadyRunning(String)
        case unsafe(String)
        case failed(String)

        public var description: String {
            switch self {
            case .alreadyRunning(let message), .unsafe(let message), .failed(let message): message
            }
        }
    }

    public let path: String
    public private(set) var descriptor: FileDescriptor?
    private var instanceLock: FileDescriptor?
    /// True when the socket came from systemd (LISTEN_FDS): then it is systemd's to remove.
    public private(set) var inherited = false

    public init(path: String) { self.path = path }

    /// Takes the instance lock and binds. Throws `.alreadyRunning` when another vaultd owns `path`.
    public func bind() throws {
        guard path.hasPrefix("/") else { throw SetupError.unsafe("the socket path must be absolute, got '\(path)'") }
        guard path.utf8.count <= 107 else {
            throw SetupError.unsafe("the socket path \(path) is \(path.utf8.count) bytes, longer than the 107 a Unix socket allows: choose a shorter --socket or VAULT_SOCKET (or set XDG_RUNTIME_DIR)")
        }
        try prepareDirectory(FileSystem.parentDirectory(of: path))

        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(path + ".lock", O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
            guard try lock.tryLockExclusive() else {
                lock.close()
                throw SetupError.alreadyRunning("vaultd is already running on \(path)")
            }
        } catch let error as Errno {
            throw SetupError.failed("cannot lock \(path).lock: \(error)")
        }
        instanceLock = lock

        // We hold the instance lock, so any socket file here was left by a daemon that died.
        if let existing = try? FileStatus.of(path, followSymlinks: false) {
            guard existing.isSocket else { throw SetupError.unsafe("\(path) exists and is not a socket; move it away") }
            FileSystem.removeFileIfPresent(path)
        }
        do {
            let fd = try UnixSocket.stream(nonBlocking: true)
            let previous = umask(0o177)
            defer { umask(previous) }
            do {
                try UnixSocket.bind(fd, path: path)
                try Self.passSenders(fd)
                try UnixSocket.listen(fd, backlog: 128)
            } catch {
                fd.close()
                throw error
            }
            descriptor = fd
        } catch let error as Errno {
            throw SetupError.failed("cannot listen on \(path): \(error)")
        }
    }

    /// Adopts a socket passed by systemd socket activation (fd 3 when LISTEN_PID is us).
    public func adopt(_ fd: FileDescriptor) throws {
        // Hold the instance lock too, so a vaultd started by hand on the same path sees this one
        // running instead of taking systemd's socket for a stale one.
        if let lock = try? FileDescriptor.open(path + ".lock", O_RDWR | O_CREAT, mode: 0o600) {
            guard (try? lock.tryLockExclusive()) == true else {
                lock.close()
                throw SetupError.alreadyRunning("vaultd is already running on \(path)")
            }
            instanceLock = lock
        }
        let flags = fcntl(fd.rawValue, F_GETFL)
        _ = fcntl(fd.rawValue, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(fd.rawValue, F_SETFD, FD_CLOEXEC)
        do {
            try Self.passSenders(fd)
        } catch {
            throw SetupError.failed("cannot ask the kernel for each message's sender on systemd's socket \(path): \(error)")
        }
        descriptor = fd
        inherited = true
    }

    /// Every message received on connections accepted from `fd` carries its sender (who sent a
    /// request, not who connected, is the caller: docs/protocol.md, "The caller"); those bytes
    /// sent before the accept too.
    private static func passSenders(_ fd: FileDescriptor) throws {
        guard vault_pass_senders(fd.rawValue) >= 0 else { throw Errno(errno) }
    }

    /// Stops listening and removes the socket (unless systemd owns it).
    public func close() {
        descriptor?.close()
        descriptor = nil
        if !inherited { FileSystem.removeFileIfPresent(path) }
        instanceLock?.close()
        instanceLock = nil
    }

    /// Creates the directory 0700 or checks the one there, without following symbolic links and
    /// with every directory above it checked too (`PrivateDirectory`).
    private func prepareDirectory(_ directory: String) throws {
        do {
            try PrivateDirectory.create(directory)
        } catch let problem as UntrustedPath {
            throw SetupError.unsafe("refusing to start: \(problem)")
        } catch {
            throw SetupError.failed("cannot create the socket directory \(directory): \(error)")
        }
    }
}
