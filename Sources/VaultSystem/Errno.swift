#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX error number, as returned by a failed system call.
public struct Errno: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(errno) }

    public static let interrupted = Errno(EINTR)
    public static let noSuchFile = Errno(ENOENT)
    public static let exists = Errno(EEXIST)
    public static let noSpace = Errno(ENOSPC)
    public static let wouldBlock = Errno(EWOULDBLOCK)
    public static let accessDenied = Errno(EACCES)
    public static let notPermitted = Errno(EPERM)
    public static let readOnlyFileSystem = Errno(EROFS)
    public static let quotaExceeded = Errno(EDQUOT)

    public var description: String { String(cString: strerror(rawValue)) }
}

/// Runs a system call, retrying while it fails with `EINTR`, and turns `-1` into a thrown `Errno`.
///
/// Every wrapper in System/ goes through this, so the retry rule cannot be forgotten; code outside
/// reads `errno` only through `Errno.current`, right after a call that does not retry (a
/// non-blocking peek, prctl).
@inline(__always)
public func retryingOnInterrupt<T: FixedWidthInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if error != .interrupted { throw error }
    }
}
