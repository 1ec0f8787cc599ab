#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Path-level operations with the modes the vault needs, all going through `retryingOnInterrupt`.
public enum FileSystem {
    /// Creates `path` and any missing parents with `mode` (created with that mode, so there is no
    /// window in which a looser directory exists). Existing directories are left as they are.
    public static func createDirectories(_ path: String, mode: mode_t = 0o700) throws {
        if try FileStatus.of(path)?.isDirectory == true { return }
        let parent = parentDirectory(of: path)
        if parent != path { try createDirectories(parent, mode: mode) }
        do {
            _ = try retryingOnInterrupt { mkdir(path, mode) }
        } catch {
            if error as? Errno != .exists { throw error }
        }
    }

    public static func rename(_ from: String, to: String) throws {
        let observer = StorageEvents.observer
        _ = try observer?.willChange(.rename(from: from, to: to))
        _ = try retryingOnInterrupt { Glibc.rename(from, to) }
        observer?.didChange(.rename(from: from, to: to))
    }

    /// Makes `to` a second name of `from`, failing with `EEXIST` instead of replacing anything.
    public static func link(_ from: String, to: String) throws {
        let observer = StorageEvents.observer
        _ = try observer?.willChange(.link(from: from, to: to))
        _ = try retryingOnInterrupt { Glibc.link(from, to) }
        observer?.didChange(.link(from: from, to: to))
    }

    public static func removeFileIfPresent(_ path: String) {
        if unlink(path) == 0 { StorageEvents.observer?.didChange(.unlink(path: path)) }
    }

    /// fsyncs a directory so a rename or link inside it is durable.
    public static func syncDirectory(_ path: String) throws {
        let observer = StorageEvents.observer
        _ = try observer?.willChange(.syncDirectory(path: path))
        let fd = try FileDescriptor.open(path, O_RDONLY | O_DIRECTORY)
        try fd.closeAfter { () in _ = try retryingOnInterrupt { fsync(fd.rawValue) } }
        observer?.didChange(.syncDirectory(path: path))
    }

    public static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    public static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// A kernel file's text (/proc, /sys): nil when it cannot be opened or read, or is over
    /// `limit` bytes.
    public static func kernelText(_ path: String, limit: Int = 64 * 1024) -> String? {
        guard let fd = try? FileDescriptor.open(path, O_RDONLY) else { return nil }
        defer { fd.close() }
        return (try? fd.readAll(limit: limit)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Names in a directory, without "." and "..".
    public static func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw Errno.current }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public static var currentUserID: UInt32 { UInt32(getuid()) }
}
