#if canImport(Glibc)
import Glibc
#endif

/// Unix-domain stream sockets: the few calls vaultd and its clients need, through `retryingOnInterrupt`.
public enum UnixSocket {
    /// A new, unconnected stream socket (close-on-exec).
    public static func stream(nonBlocking: Bool = false) throws -> FileDescriptor {
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return FileDescriptor(rawValue: try retryingOnInterrupt { socket(AF_UNIX, flags, 0) })
    }

    public static func connect(_ fd: FileDescriptor, path: String) throws {
        try withAddress(path) { address, length in
            _ = try retryingOnInterrupt { Glibc.connect(fd.rawValue, address, length) }
        }
    }

    public static func bind(_ fd: FileDescriptor, path: String) throws {
        try withAddress(path) { address, length in
            _ = try retryingOnInterrupt { Glibc.bind(fd.rawValue, address, length) }
        }
    }

    public static func listen(_ fd: FileDescriptor, backlog: Int32) throws {
        _ = try retryingOnInterrupt { Glibc.listen(fd.rawValue, backlog) }
    }

    /// Accepts one connection, or returns nil when none is pending on a non-blocking socket.
    public static func accept(_ fd: FileDescriptor) throws -> FileDescriptor? {
        while true {
            let client = Glibc.accept(fd.rawValue, nil, nil)
            if client >= 0 {
                // accept4 is not exported to Swift; the daemon never spawns, so there is no exec race.
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                return FileDescriptor(rawValue: client)
            }
            let error = Errno.current
            if error == .interrupted { continue }
            if error == .wouldBlock || error == Errno(ECONNABORTED) { return nil }
            throw error
        }
    }

    /// Bounds how long a blocking send or receive may wait, so a stuck peer cannot hang us.
    public static func setTimeouts(_ fd: FileDescriptor, seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Waits until `fd` has something to read (bytes, or the peer's close) for at most `seconds`;
    /// false when the time ran out first.
    public static func waitReadable(_ fd: FileDescriptor, seconds: Double) throws -> Bool {
        var descriptor = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(max(seconds, 0), 86_400) * 1000)
        return try retryingOnInterrupt { poll(&descriptor, 1, milliseconds) } > 0
    }

    /// How long a blocking receive waits before failing with EAGAIN (an idle timeout).
    public static func setReceiveTimeout(_ fd: FileDescriptor, seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) throws -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity, !bytes.isEmpty else { throw Errno(ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
