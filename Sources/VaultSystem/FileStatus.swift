#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The parts of `struct stat` the vault cares about: identity (to notice a replaced file),
/// ownership and permission bits.
public struct FileStatus: Sendable, Equatable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let mode: UInt32
    public let owner: UInt32
    public let modificationSeconds: Int
    public let modificationNanoseconds: Int
    /// The inode's last status change (st_ctim): set by the kernel on every write, chmod, rename
    /// or link, and unlike the mtime no user can set it back (`touch -d` changes it too).
    public let changeSeconds: Int
    public let changeNanoseconds: Int

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        mode = UInt32(info.st_mode)
        owner = UInt32(info.st_uid)
        modificationSeconds = Int(info.st_mtim.tv_sec)
        modificationNanoseconds = Int(info.st_mtim.tv_nsec)
        changeSeconds = Int(info.st_ctim.tv_sec)
        changeNanoseconds = Int(info.st_ctim.tv_nsec)
    }

    /// Status of `path`, or nil when it does not exist.
    public static func of(_ path: String, followSymlinks: Bool = true) throws -> FileStatus? {
        var info = stat()
        do {
            _ = try retryingOnInterrupt { followSymlinks ? stat(path, &info) : lstat(path, &info) }
        } catch {
            if error as? Errno == .noSuchFile { return nil }
            throw error
        }
        return FileStatus(info)
    }

    public var permissions: UInt32 { mode & 0o7777 }
    public var isDirectory: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    public var isRegularFile: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }
    public var isSocket: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFSOCK) }
    public var isSymbolicLink: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFLNK) }

    /// The kind of file, for messages: "a regular file", "a FIFO", ...
    public var kind: String {
        switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): "a regular file"
        case UInt32(S_IFDIR): "a directory"
        case UInt32(S_IFLNK): "a symbolic link"
        case UInt32(S_IFSOCK): "a socket"
        case UInt32(S_IFIFO): "a FIFO"
        case UInt32(S_IFCHR): "a character device"
        case UInt32(S_IFBLK): "a block device"
        default: "a file of unknown kind"
        }
    }

    /// What tells one unchanged file from any other or from itself changed: device, inode, size,
    /// modification time and status change time. The ctime is what makes this hold against a
    /// rewrite whose mtime was put back (`touch -d`, utimensat): that sets the ctime to now.
    public struct Identity: Hashable, Sendable {
        public var device: UInt64, inode: UInt64, size: Int64
        public var modificationSeconds: Int, modificationNanoseconds: Int, changeSeconds: Int, changeNanoseconds: Int
    }

    public var identity: Identity {
        Identity(device: device, inode: inode, size: size,
                 modificationSeconds: modificationSeconds, modificationNanoseconds: modificationNanoseconds,
                 changeSeconds: changeSeconds, changeNanoseconds: changeNanoseconds)
    }

    /// True when the same, unchanged file is still at the path (`Identity`).
    public func sameFile(as other: FileStatus) -> Bool { identity == other.identity }
}
