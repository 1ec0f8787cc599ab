#if canImport(Glibc)
import Glibc
#endif
import Foundation
import VaultCore
import VaultSystem

/// Fails one call that changes a file in `directory`: the `failAt`-th (counting from 0) is
/// refused with `errno`, or, for `.shortThenError`, a write writes half of what it was asked
/// and the next call is refused. Counts the calls it saw, to know how many steps an operation
/// has. Calls on files elsewhere pass untouched.
final class FaultInjector: StorageObserver, @unchecked Sendable {
    enum Fault: CustomStringConvertible {
        case error(Errno)
        case shortThenError(Errno)

        var description: String {
            switch self {
            case .error(let errno): "\(errno)"
            case .shortThenError(let errno): "a short write, then \(errno)"
            }
        }
    }

    let directory: String
    let failAt: Int
    let fault: Fault
    private let lock = NSLock()
    private var seen = 0
    private var armed: Errno?

    init(directory: String, failAt: Int = .max, fault: Fault = .error(.noSpace)) {
        self.directory = directory
        self.failAt = failAt
        self.fault = fault
    }

    var calls: Int { lock.withLock { seen } }

    func willChange(_ change: StorageChange) throws -> Int? {
        guard mine(change) else { return nil }
        return try lock.withLock { () throws -> Int? in
            defer { seen += 1 }
            if let errno = armed {
                armed = nil
                throw errno
            }
            guard seen == failAt else { return nil }
            switch fault {
            case .error(let errno):
                throw errno
            case .shortThenError(let errno):
                guard case .write(_, _, let bytes) = change, bytes.count > 1 else { throw errno }
                armed = errno
                return bytes.count / 2
            }
        }
    }

    func didChange(_ change: StorageChange) {}

    private func mine(_ change: StorageChange) -> Bool {
        switch change {
        case .write(let fd, _, _), .truncate(let fd, _), .sync(let fd): Self.path(of: fd).map(inDirectory) ?? false
        case .create(let path, _), .unlink(let path), .rename(let path, _), .link(let path, _): inDirectory(path)
        case .syncDirectory(let path): path == directory
        }
    }

    private func inDirectory(_ path: String) -> Bool { FileSystem.parentDirectory(of: path) == directory }

    static func path(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
}
