#if canImport(Glibc)
import Glibc
#endif
import Foundation
import VaultCore
import VaultSystem

/// Records every change to the files of one directory, in order, as the kernel received them,
/// with the workload's acknowledgements between them: the raw material of `CrashStates`.
/// Files are followed by inode, so a temp file renamed over the vault is the same file before
/// and after; changes to files elsewhere (other tests run in the same process) are ignored.
final class StorageRecorder: StorageObserver, @unchecked Sendable {
    enum Event {
        case write(inode: UInt64, offset: Int, bytes: [UInt8])
        case truncate(inode: UInt64, length: Int)
        /// The inode's data and size are durable.
        case sync(inode: UInt64)
        case name(NameChange)
        /// The directory's names are durable.
        case syncDirectory
        /// The workload's operation `n` returned success.
        case acknowledged(Int)
    }

    enum NameChange {
        case create(String, UInt64)
        case rename(String, String)
        case link(String, String)
        case unlink(String)
    }

    let directory: String
    let initialNames: [String: UInt64]
    let initialContents: [UInt64: [UInt8]]
    private let lock = NSLock()
    private var recorded: [Event] = []
    /// The names as they are now, to tell a new file from one opened again with O_CREAT.
    private var names: [String: UInt64]

    /// Starts from what `directory` holds now.
    init(directory: String) throws {
        self.directory = directory
        var names: [String: UInt64] = [:], contents: [UInt64: [UInt8]] = [:]
        for name in try FileSystem.contentsOfDirectory(directory) {
            let path = directory + "/" + name
            guard let status = try FileStatus.of(path, followSymlinks: false), status.isRegularFile else { continue }
            names[name] = Self.inode(path: path)
            contents[names[name]!] = Array(FileManager.default.contents(atPath: path) ?? Data())
        }
        self.names = names
        initialNames = names
        initialContents = contents
    }

    var events: [Event] { lock.withLock { recorded } }

    func acknowledge(_ operation: Int) { lock.withLock { recorded.append(.acknowledged(operation)) } }

    func willChange(_ change: StorageChange) throws -> Int? { nil }

    func didChange(_ change: StorageChange) {
        lock.withLock {
            switch change {
            case .write(let fd, let offset, let bytes):
                // A write with no position (a pipe, a socket) is no file's.
                if offset >= 0, let inode = tracked(fd) { recorded.append(.write(inode: inode, offset: offset, bytes: bytes)) }
            case .truncate(let fd, let length):
                if let inode = tracked(fd) { recorded.append(.truncate(inode: inode, length: length)) }
            case .sync(let fd):
                if let inode = tracked(fd) { recorded.append(.sync(inode: inode)) }
            case .create(let path, let fd):
                guard let name = mine(path), fd >= 0 else { return }
                let inode = Self.inode(fd: fd)
                if names[name] != inode {
                    names[name] = inode
                    recorded.append(.name(.create(name, inode)))
                }
            case .rename(let from, let to):
                guard let from = mine(from), let to = mine(to), let inode = names.removeValue(forKey: from) else { return }
                names[to] = inode
                recorded.append(.name(.rename(from, to)))
            case .link(let from, let to):
                guard let from = mine(from), let to = mine(to), let inode = names[from] else { return }
                names[to] = inode
                recorded.append(.name(.link(from, to)))
            case .unlink(let path):
                guard let name = mine(path), names.removeValue(forKey: name) != nil else { return }
                recorded.append(.name(.unlink(name)))
            case .syncDirectory(let path):
                if path == directory { recorded.append(.syncDirectory) }
            }
        }
    }

    /// The name of `path` in the directory, or nil for a path elsewhere.
    private func mine(_ path: String) -> String? {
        FileSystem.parentDirectory(of: path) == directory ? FileSystem.lastComponent(of: path) : nil
    }

    private func tracked(_ fd: Int32) -> UInt64? {
        let inode = Self.inode(fd: fd)
        return names.values.contains(inode) || recorded.contains(where: { if case .name(.create(_, inode)) = $0 { true } else { false } }) ? inode : nil
    }

    /// A file's identity: its inode number mixed with its device's, so that a file of another
    /// file system with the same inode number is not taken for one of the directory's.
    static func inode(fd: Int32) -> UInt64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? identity(info) : 0
    }

    static func inode(path: String) -> UInt64 {
        var info = stat()
        return lstat(path, &info) == 0 ? identity(info) : 0
    }

    static func identity(_ info: stat) -> UInt64 {
        UInt64(info.st_ino) ^ (UInt64(info.st_dev) &* 0x9E37_79B9_7F4A_7C15)
    }
}
