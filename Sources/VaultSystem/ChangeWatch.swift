#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import Synchronization

/// Whether a directory's entries (and one file's content in it) may have changed since the last
/// look, for one `poll` instead of a `stat` walking the file's whole path: an inotify instance
/// watching the directory for names created, removed and renamed (and for its own removal or
/// rename) and, when `file` is given, that file for writes and attribute changes.
///
/// Why this is safe: the kernel queues an inotify event inside the system call that makes the
/// change, before that call returns; a request that arrives after another process's write or
/// rename returned therefore finds the instance readable. What it cannot see, and so where it is
/// never used (`news` answers `unwatched`, and the owner `stat`s as before): a filesystem another
/// machine writes (NFS, SMB, FUSE: only local filesystems of known types are watched, by
/// `statfs`), and no inotify instance or watch to be had (`max_user_instances`,
/// `max_user_watches`). What it does not watch: the directory's ancestors renamed or mounted over
/// (a `stat` of the full path would notice those; they take the user's own rights, or root's).
///
/// Use: `news()` on every request, without a lock. On anything but `quiet`, the owner takes its
/// lock, calls `rearm()` (which drains the queued events, then watches the paths as they are now)
/// and only then `stat`s and catches up, all under that lock: a change made before a path is
/// watched is seen by that `stat`, one made after leaves a new event, and a request that finds the
/// instance quiet before the owner has caught up must wait for the owner's lock (the owner makes
/// sure of it: what such a request would use is set aside while it catches up), so it never reads
/// or writes what the change replaced.
public final class ChangeWatch: Sendable {
    public enum News: Equatable, Sendable {
        /// Nothing changed since the last `rearm`: what the owner knows of the files is current.
        case quiet
        /// Something may have changed, or nothing is watched yet: `rearm`, then look.
        case pending
        /// This directory cannot be watched: `stat` on every request.
        case unwatched
    }

    public let directory: String
    public let file: String?
    private let isLocal: @Sendable (Int) -> Bool
    /// The inotify instance, -1 until the first `rearm` makes one; then never changed until deinit.
    private let descriptor = Atomic<Int32>(-1)
    private let mode = Atomic<UInt8>(Mode.pending.rawValue)
    /// Tests only: runs in `rearm` once the paths are watched, before it returns.
    private let afterWatching: (@Sendable () -> Void)?

    private enum Mode: UInt8 { case pending, armed, unwatched }

    /// The events that count: for the directory, names appearing, leaving or renamed, and the
    /// directory itself removed or renamed; for the file, its bytes or attributes changed, itself
    /// removed or renamed (a rename over it is also the directory's `IN_MOVED_TO`). Not
    /// `IN_MODIFY` in the directory: appends to other files there (audit.log) are not news.
    static let directoryEvents = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF) | UInt32(IN_ONLYDIR)
    static let fileEvents = UInt32(IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF) | UInt32(IN_DONT_FOLLOW)

    /// Watches `directory` and, when given, `file`'s content (a path in `directory`, never
    /// followed through a symbolic link). `isLocal` takes `statfs`'s `f_type`; tests replace it.
    public convenience init(directory: String, file: String? = nil, isLocal: @escaping @Sendable (Int) -> Bool = ChangeWatch.isLocalFileSystem) {
        self.init(directory: directory, file: file, isLocal: isLocal, afterWatching: nil)
    }

    /// `afterWatching`, for tests, runs in `rearm` once the paths are watched.
    package init(directory: String, file: String?, isLocal: @escaping @Sendable (Int) -> Bool, afterWatching: (@Sendable () -> Void)?) {
        self.directory = directory
        self.file = file
        self.isLocal = isLocal
        self.afterWatching = afterWatching
    }

    deinit {
        let fd = descriptor.load(ordering: .acquiring)
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Whether anything may have changed since the last `rearm`: one `poll` with no wait.
    public func news() -> News {
        switch Mode(rawValue: mode.load(ordering: .acquiring)) {
        case .armed:
            var entry = pollfd(fd: descriptor.load(ordering: .relaxed), events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 0)
            return ready == 0 ? .quiet : .pending  // readable, or poll failed: look
        case .unwatched: return .unwatched
        default: return .pending
        }
    }

    /// Drops every event queued so far, then watches the directory and file as they are now at
    /// their paths (a replaced file or directory is watched anew). In that order: an event queued
    /// between a watch and the drain would be lost, and with it the news of a file renamed over
    /// the one just watched, whose later appends nothing would then report. Call under the
    /// owner's lock, before the `stat` that decides what changed. A missing directory leaves the
    /// watch pending (the next request calls this again); a filesystem that is not local, or no
    /// inotify to be had, makes it `unwatched` for good.
    public func rearm() {
        guard Mode(rawValue: mode.load(ordering: .relaxed)) != .unwatched else { return }
        var fd = descriptor.load(ordering: .relaxed)
        if fd < 0 {
            fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return giveUp() }
            descriptor.store(fd, ordering: .releasing)
        }
        guard drain(fd) else { return giveUp() }
        var type: Int64 = 0
        guard (try? retryingOnInterrupt({ vault_filesystem_type(directory, &type) })) != nil else { return stayPending() }
        guard isLocal(Int(type)) else { return giveUp() }
        guard inotify_add_watch(fd, directory, Self.directoryEvents) >= 0 else {
            return Errno.current == .noSuchFile ? stayPending() : giveUp()
        }
        // A missing file is fine: its appearance is the directory's event.
        if let file, inotify_add_watch(fd, file, Self.fileEvents) < 0, Errno.current != .noSuchFile {
            return giveUp()
        }
        // A watch left on the inode a path named before (a file renamed over) goes when that inode
        // does, which for a file nothing holds open is at once; a directory renamed away and kept
        // keeps its watch, a few bytes of `max_user_watches`, until this instance closes.
        afterWatching?()
        mode.store(Mode.armed.rawValue, ordering: .releasing)
    }

    /// Reads every queued event (they are only news, not read one by one). False on an error.
    private func drain(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count == 0 { return true }
            switch Errno.current {
            case .interrupted: continue
            case .wouldBlock: return true
            default: return false
            }
        }
    }

    private func stayPending() { mode.store(Mode.pending.rawValue, ordering: .releasing) }
    private func giveUp() { mode.store(Mode.unwatched.rawValue, ordering: .releasing) }

    /// Filesystems whose every change is made by this machine's kernel, so raises inotify events:
    /// ext2/3/4, XFS, Btrfs, tmpfs, ramfs, F2FS, ZFS, bcachefs. Not NFS, SMB, FUSE, overlayfs
    /// (changes made to its layers directly raise none) or anything unknown.
    public static let isLocalFileSystem: @Sendable (Int) -> Bool = { localFileSystems.contains(UInt32(truncatingIfNeeded: $0)) }
    private static let localFileSystems: Set<UInt32> = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x8584_58F6, 0xF2F5_2010, 0x2FC1_2FC1, 0xCA45_1A4E]
}
