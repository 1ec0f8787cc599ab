import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultTestSupport
import VaultSystem

/// A program's file rewritten in place with the same size and its modification time put back
/// (what `touch -d` does) must not pass for the file that was hashed or judged before.
@Suite struct ExecutableHashesTests {
    let directory = TemporaryDirectory(prefix: "vault-exe-hashes")

    @Test func aFileRewrittenWithItsMtimePutBackIsHashedAgain() throws {
        let path = directory.file("program")
        try Data("#!/bin/true first\n".utf8).write(to: URL(fileURLWithPath: path))
        let before = try #require(try FileStatus.of(path))
        let first = try #require(ExecutableHashes().hash(ofFile: path))
        let hashes = ExecutableHashes()
        #expect(hashes.hash(ofFile: path) == first)

        try Self.waitForTheClockToPass(before, in: directory)
        try Data("#!/bin/sh evil!!!\n".utf8).write(to: URL(fileURLWithPath: path))  // same size
        try Self.setModificationTime(of: path, to: before)
        let after = try #require(try FileStatus.of(path))
        #expect(after.size == before.size && after.inode == before.inode)
        #expect(after.modificationSeconds == before.modificationSeconds && after.modificationNanoseconds == before.modificationNanoseconds)

        #expect(!after.sameFile(as: before))
        let second = try #require(hashes.hash(ofFile: path))
        #expect(second != first)
        #expect(second == ExecutableHashes().hash(ofFile: path))
    }

    /// The kernel stamps ctime from a coarse clock: waits (on the condition, not a fixed time)
    /// until a fresh file's ctime is later than `status`'s, so a rewrite now gets a new one.
    static func waitForTheClockToPass(_ status: FileStatus, in directory: TemporaryDirectory) throws {
        let probe = directory.file("clock-probe")
        while true {
            try Data().write(to: URL(fileURLWithPath: probe))
            let now = try #require(try FileStatus.of(probe))
            if (now.changeSeconds, now.changeNanoseconds) > (status.changeSeconds, status.changeNanoseconds) { return }
        }
    }

    /// `touch -d` with the exact time `status` had.
    static func setModificationTime(of path: String, to status: FileStatus) throws {
        var times = [
            timespec(tv_sec: status.modificationSeconds, tv_nsec: status.modificationNanoseconds),
            timespec(tv_sec: status.modificationSeconds, tv_nsec: status.modificationNanoseconds),
        ]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw Errno.current }
    }
}
