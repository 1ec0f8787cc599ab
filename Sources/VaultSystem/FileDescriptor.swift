#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thin typed wrapper over a file descriptor. It does not close itself: ownership is explicit,
/// as with `close()` or `closeAfter(_:)`.
public struct FileDescriptor: Sendable, Hashable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Opens `path`; `O_CLOEXEC` is always added so descriptors never leak into child processes.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws -> FileDescriptor {
        let observer = flags & O_CREAT != 0 ? StorageEvents.observer : nil
        _ = try observer?.willChange(.create(path: path, fd: -1))
        let fd = try retryingOnInterrupt { Glibc.open(path, flags | O_CLOEXEC, mode) }
        observer?.didChange(.create(path: path, fd: fd))
        return FileDescriptor(rawValue: fd)
    }

    /// Opens `path` for appending, as a private log (`openPrivateFile`).
    public static func openPrivateLog(_ path: String, user: UInt32 = FileSystem.currentUserID) throws -> FileDescriptor {
        try openPrivateFile(path, O_WRONLY | O_APPEND, user: user)
    }

    /// Opens `path` with `access` (`O_WRONLY | O_APPEND`, `O_RDWR`, ...) as a private file: never
    /// through a symbolic link (`O_NOFOLLOW`), never waiting on a FIFO (`O_NONBLOCK`), created with
    /// mode 0600 whatever the umask. What is opened must then be a regular file owned by `user`
    /// with mode 0600, else it is closed and `UntrustedPath` thrown (nothing was written); `Errno`
    /// when it cannot be opened at all.
    public static func openPrivateFile(_ path: String, _ access: Int32, user: UInt32 = FileSystem.currentUserID) throws -> FileDescriptor {
        let flags = access | O_NOFOLLOW | O_NONBLOCK
        let fd: FileDescriptor
        var created = false
        do {
            // O_EXCL: a new file is ours and made here; O_CREAT|O_EXCL never follows a link either.
            fd = try open(path, flags | O_CREAT | O_EXCL, mode: 0o600)
            created = true
        } catch let error as Errno where error == .exists {
            do {
                fd = try open(path, flags)
            } catch {
                // ELOOP (a link), ENXIO (a FIFO nobody reads), EISDIR, ...: say what is there.
                if let status = try? FileStatus.of(path, followSymlinks: false), !status.isRegularFile {
                    throw UntrustedPath(path: path, reason: status.isSymbolicLink ? .symbolicLink : .wrongKind(found: status.kind, expected: "a regular file"),
                                        owner: status.owner, user: user)
                }
                throw error
            }
        }
        do {
            if created { _ = try retryingOnInterrupt { fchmod(fd.rawValue, 0o600) } }
            let status = try fd.status()
            guard status.isRegularFile else {
                throw UntrustedPath(path: path, reason: .wrongKind(found: status.kind, expected: "a regular file"), owner: status.owner, user: user)
            }
            guard status.owner == user else {
                throw UntrustedPath(path: path, reason: .foreignOwner, owner: status.owner, mode: status.permissions, user: user)
            }
            guard status.permissions == 0o600 else {
                throw UntrustedPath(path: path, reason: .wrongMode(expected: 0o600), owner: status.owner, mode: status.permissions, user: user)
            }
            let current = try retryingOnInterrupt { fcntl(fd.rawValue, F_GETFL) }
            _ = try retryingOnInterrupt { fcntl(fd.rawValue, F_SETFL, current & ~O_NONBLOCK) }
        } catch {
            fd.close()
            throw error
        }
        return fd
    }

    public func close() {
        // Linux closes the descriptor even when close() reports EINTR; retrying could close another one.
        _ = Glibc.close(rawValue)
    }

    /// Runs `body` and closes the descriptor afterwards, whatever happens.
    public func closeAfter<R>(_ body: () throws -> R) rethrows -> R {
        defer { close() }
        return try body()
    }

    /// Reads up to `buffer.count` bytes; returns 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Copies up to `buffer.count` bytes waiting on a socket without consuming them (MSG_PEEK).
    public func peek(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try retryingOnInterrupt { Glibc.recv(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_PEEK)) }
    }

    /// Writes every byte of `bytes`, looping over short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let observer = StorageEvents.observer
            var count = bytes.count - offset
            if let observer {
                let asked = Array(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                count = min(count, try observer.willChange(.write(fd: rawValue, offset: -1, bytes: asked)) ?? count)
            }
            let written = try retryingOnInterrupt { Glibc.write(rawValue, bytes.baseAddress! + offset, count) }
            if let observer {
                // Where the bytes went: the position after the write, less what was written (with
                // O_APPEND the position is the end the kernel chose).
                let end = Int(lseek(rawValue, 0, SEEK_CUR))
                observer.didChange(.write(fd: rawValue, offset: end - written, bytes: Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + written)]))))
            }
            offset += written
        }
    }

    /// Sends every byte on a socket with MSG_NOSIGNAL: a peer that went away is an EPIPE error,
    /// never a SIGPIPE that kills the process.
    public func sendAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = try retryingOnInterrupt {
                    Glibc.send(rawValue, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                }
                offset += sent
            }
        }
    }

    public func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { (buffer) in try writeAll(buffer) }
    }

    /// Reads until end of file, refusing anything larger than `limit` bytes.
    public func readAll(limit: Int) throws -> [UInt8]? {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try chunk.withUnsafeMutableBytes { (buffer) in try read(into: buffer) }
            if count == 0 { return result }
            if result.count + count > limit { return nil }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    public func sync() throws {
        let observer = StorageEvents.observer
        _ = try observer?.willChange(.sync(fd: rawValue))
        _ = try retryingOnInterrupt { fsync(rawValue) }
        observer?.didChange(.sync(fd: rawValue))
    }

    public func status() throws -> FileStatus {
        var info = stat()
        _ = try retryingOnInterrupt { fstat(rawValue, &info) }
        return FileStatus(info)
    }

    /// Status of `name` in this directory (`fstatat`), links followed: no walk from the root.
    public func status(of name: String) throws -> FileStatus {
        var info = stat()
        _ = try retryingOnInterrupt { fstatat(rawValue, name, &info, 0) }
        return FileStatus(info)
    }

    /// Tries to take an exclusive `flock`; returns false when another open file description holds it.
    public func tryLockExclusive() throws -> Bool {
        do {
            _ = try retryingOnInterrupt { flock(rawValue, LOCK_EX | LOCK_NB) }
            return true
        } catch {
            if error as? Errno == .wouldBlock { return false }
            throw error
        }
    }

    public func unlock() {
        _ = flock(rawValue, LOCK_UN)
    }

    /// Tries to take an exclusive open-file-description lock (`F_OFD_SETLK`) on `length` bytes
    /// from `start` (`length` 0: to the end of the file, whatever its size); returns false when
    /// another open file description holds an overlapping one, in this process or another.
    /// Released when this descriptor closes.
    public func tryLockRange(start: Int, length: Int) throws -> Bool {
        var region = flock()
        region.l_type = Int16(F_WRLCK)
        region.l_whence = Int16(SEEK_SET)
        region.l_start = start
        region.l_len = length
        // F_OFD_SETLK (Linux 3.15); Glibc's module does not export it.
        let setOFDLock: Int32 = 37
        do {
            _ = try retryingOnInterrupt { fcntl(rawValue, setOFDLock, &region) }
            return true
        } catch {
            if error == .wouldBlock || error == .accessDenied { return false }
            throw error
        }
    }
}
