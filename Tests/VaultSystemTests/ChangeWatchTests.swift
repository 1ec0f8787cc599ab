import Foundation
import Glibc
import Synchronization
import Testing
@testable import VaultSystem

/// `ChangeWatch`: what the vault file store and the audit log skip their per-request `stat` on.
/// Each change another process could make to the directory or the file must leave news, and the
/// watch must follow a file replaced by a rename (a compaction): a watch left on the old inode
/// would miss every later append to the new one.
@Suite struct ChangeWatchTests {
    private struct Scratch {
        let directory = NSTemporaryDirectory() + "vault-watch-" + UUID().uuidString
        var file: String { directory + "/vault.db" }

        init() {
            try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            write("snapshot", to: file)
        }

        func write(_ text: String, to path: String) {
            FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        }

        /// Appends through a descriptor of its own, as another process would.
        func append(_ text: String, to path: String) throws {
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A watch on `scratch`'s directory and file, armed, that any file system counts as local.
    private func armed(_ scratch: Scratch, file: Bool = true) -> ChangeWatch {
        let watch = ChangeWatch(directory: scratch.directory, file: file ? scratch.file : nil, isLocal: { _ in true })
        watch.rearm()
        return watch
    }

    @Test func aNewWatchHasNewsUntilArmedThenIsQuietUntilSomethingChanges() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let watch = ChangeWatch(directory: scratch.directory, file: scratch.file, isLocal: { _ in true })
        #expect(watch.news() == .pending)
        watch.rearm()
        #expect(watch.news() == .quiet)
        #expect(watch.news() == .quiet)  // news() only looks: nothing is consumed
        _ = try Data(contentsOf: URL(fileURLWithPath: scratch.file))  // a read is no change
        #expect(watch.news() == .quiet)
    }

    @Test func everyChangeToTheFileOrTheDirectoryIsNewsUntilRearmed() throws {
        let changes: [(String, (Scratch) throws -> Void)] = [
            ("an append to the file", { try $0.append("entry", to: $0.file) }),
            ("the file truncated", { _ = truncate($0.file, 3) }),
            ("the file chmod'ed", { _ = chmod($0.file, 0o644) }),
            ("the file's times set back", { _ = utimes($0.file, nil) }),
            ("the file replaced by a rename", { scratch in
                scratch.write("compacted", to: scratch.directory + "/vault.db.tmp")
                _ = rename(scratch.directory + "/vault.db.tmp", scratch.file)
            }),
            ("the file removed", { _ = unlink($0.file) }),
            ("the file renamed away", { _ = rename($0.file, $0.directory + "/old") }),
            ("a name created beside it", { $0.write("", to: $0.directory + "/audit.log") }),
            ("a symbolic link put in its place", { scratch in
                _ = unlink(scratch.file)
                _ = symlink("/etc/passwd", scratch.file)
            }),
            ("the directory renamed", { _ = rename($0.directory, $0.directory + "-moved") }),
        ]
        for (name, change) in changes {
            let scratch = Scratch()
            defer {
                scratch.remove()
                try? FileManager.default.removeItem(atPath: scratch.directory + "-moved")
            }
            let watch = armed(scratch)
            try change(scratch)
            #expect(watch.news() == .pending, "\(name)")
            watch.rearm()
            // Quiet again, watching what is there now; a directory no longer there is still news.
            let moved = FileManager.default.fileExists(atPath: scratch.directory + "-moved")
            #expect(watch.news() == (moved ? .pending : .quiet), "\(name)")
        }
    }

    /// A compaction renames a new file over the old: the next `rearm` must watch the new inode,
    /// so that appends to it are news too.
    @Test func aFileReplacedByARenameIsWatchedAnewAfterRearm() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let watch = armed(scratch)
        for round in 0..<3 {
            scratch.write("compacted \(round)", to: scratch.directory + "/vault.db.tmp")
            #expect(rename(scratch.directory + "/vault.db.tmp", scratch.file) == 0)
            #expect(watch.news() == .pending)
            watch.rearm()
            #expect(watch.news() == .quiet)
            try scratch.append("entry", to: scratch.file)
            #expect(watch.news() == .pending, "round \(round): an append to the new file")
            watch.rearm()
            #expect(watch.news() == .quiet)
        }
    }

    /// A compaction by another process can land while the owner is rearming, just after the
    /// paths are watched: its events must still be news afterwards. Were they drained with the
    /// older ones, the watch would stay on the old inode and every later append to the new file
    /// would go unreported (the store serving what the other process had replaced).
    @Test func aRenameOverWhileRearmingIsNewsAndItsFileIsWatchedAfter() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let compactions = Atomic<Int>(0)
        let watch = ChangeWatch(directory: scratch.directory, file: scratch.file, isLocal: { _ in true }, afterWatching: {
            guard compactions.add(1, ordering: .relaxed).oldValue == 0 else { return }
            scratch.write("compacted", to: scratch.directory + "/vault.db.tmp")
            _ = rename(scratch.directory + "/vault.db.tmp", scratch.file)
        })
        watch.rearm()
        #expect(compactions.load(ordering: .relaxed) == 1)
        #expect(watch.news() == .pending, "the rename made while rearming")
        watch.rearm()
        #expect(watch.news() == .quiet)
        try scratch.append("entry", to: scratch.file)
        #expect(watch.news() == .pending, "an append to the file renamed in")
    }

    /// audit.log is appended to on every request: appends to files other than the one watched
    /// are no news, or every request would take the slow path.
    @Test func appendsToOtherFilesInTheDirectoryAreNoNews() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let log = scratch.directory + "/audit.log"
        scratch.write("", to: log)
        for watch in [armed(scratch), armed(scratch, file: false)] {
            try scratch.append("record\n", to: log)
            _ = chmod(log, 0o600)
            #expect(watch.news() == .quiet)
        }
        // Without a file watched, the file's own appends are no news either (audit.log's watch).
        let directoryOnly = armed(scratch, file: false)
        try scratch.append("entry", to: scratch.file)
        #expect(directoryOnly.news() == .quiet)
    }

    /// Another process's change is news as soon as its system call has returned.
    @Test func aChangeByAnotherProcessIsNewsOnceItHasReturned() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let watch = armed(scratch)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "printf entry >> \"$1\"", "sh", scratch.file]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(watch.news() == .pending)
    }

    @Test func aDirectoryThatDoesNotExistYetStaysPendingUntilItDoes() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let missing = scratch.directory + "/later"
        let watch = ChangeWatch(directory: missing, file: missing + "/vault.db", isLocal: { _ in true })
        watch.rearm()
        #expect(watch.news() == .pending)
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: false)
        watch.rearm()
        #expect(watch.news() == .quiet)  // the file's absence is fine: its creation is the directory's news
        scratch.write("new", to: missing + "/vault.db")
        #expect(watch.news() == .pending)
    }

    /// On a filesystem another machine can write (NFS, SMB, FUSE), no event would come: the watch
    /// says so for good, and its owner stats as before.
    @Test func aFileSystemThatIsNotLocalIsNeverWatched() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        var asked: [Int] = []
        let types = AdaptiveLock<[Int]>([])
        let watch = ChangeWatch(directory: scratch.directory, file: scratch.file, isLocal: { type in
            types.withLock { $0.append(type) }
            return false
        })
        watch.rearm()
        #expect(watch.news() == .unwatched)
        watch.rearm()
        #expect(watch.news() == .unwatched)
        asked = types.withLock { $0 }
        #expect(asked.count == 1, "asked once, then given up: \(asked)")
    }

    @Test func onlyFileSystemsThisKernelAloneWritesCountAsLocal() {
        let local: [Int] = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0xF2F5_2010, 0x2FC1_2FC1]
        let remote: [Int] = [
            0x6969,  // NFS
            0xFE53_4D42,  // SMB2
            0xFF53_4D42,  // CIFS
            0x6573_5546,  // FUSE
            0x794C_7630,  // overlayfs
            0x0BD0_0BD0,  // Lustre
            0x0102_1997,  // 9p
            0, -1,  // nothing known
        ]
        for type in local { #expect(ChangeWatch.isLocalFileSystem(type), "\(String(type, radix: 16))") }
        for type in remote { #expect(!ChangeWatch.isLocalFileSystem(type), "\(String(type, radix: 16))") }
        // The machine's own /dev/shm (tmpfs) is watched with the default check.
        let shm = ChangeWatch(directory: "/dev/shm")
        shm.rearm()
        #expect(shm.news() != .unwatched)
    }
}
