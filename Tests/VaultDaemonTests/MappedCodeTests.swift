import Foundation
import Testing
import VaultCore
import VaultTestSupport
@testable import VaultDaemon
import VaultSystem

/// What counts as code a caller's user can change (`MappedCode`), judged on real files: lines in
/// the form of /proc/PID/maps, naming files this test made or the system's.
@Suite struct MappedCodeTests {
    /// The user judged: this process's uid, or one the files are given to when this runs as root
    /// (for whom owning a file says nothing).
    static let user: UInt32 = geteuid() == 0 ? 4242 : geteuid()

    func give(_ path: String) {
        if geteuid() == 0 { chown(path, Self.user, Self.user) }
    }

    /// A maps line mapping `path` with `perms`, its inode read from the file.
    func line(_ path: String, perms: String = "r-xp", deleted: Bool = false) -> String {
        let inode = (try? FileStatus.of(path))??.inode ?? 0
        return "7f0000000000-7f0000001000 \(perms) 00000000 fd:01 \(inode)                      \(path)\(deleted ? " (deleted)" : "")"
    }

    func reason(_ lines: [String], uid: UInt32 = user, executable: String? = "/usr/bin/python3.11") -> String? {
        MappedCode.reason(maps: lines.joined(separator: "\n") + "\n", root: "", uid: uid, executable: executable)
    }

    static let systemLibrary = "/lib/x86_64-linux-gnu/libc.so.6"

    @Test func theSystemsLibrariesAndTheProgramItselfAreNotTheUsers() throws {
        let directory = TemporaryDirectory()
        let program = directory.file("tool")
        try ExecutableFile.copy("/usr/bin/true", to: program)
        give(program)
        give(directory.path)
        let maps = [line(program), line(Self.systemLibrary), "7ffd000-7ffe000 r-xp 00000000 00:00 0                          [vdso]",
                    "55d000-55e000 rw-p 00000000 00:00 0                          [heap]"]
        #expect(reason(maps, executable: program) == nil)
        #expect(reason(maps, uid: 0, executable: program) == nil)
        // The same program as a library of another: the user's file.
        #expect(reason(maps, executable: "/usr/bin/python3.11") == "it runs code from \(program), which its user can change")
    }

    @Test func aLibraryTheUserOwnsOrAnyoneMayWriteIsTheUsers() throws {
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let library = directory.file("libplug.so")
        try ExecutableFile.copy(Self.systemLibrary, to: library, mode: 0o755)
        give(library)
        #expect(reason([line(library)]) == "it runs code from \(library), which its user can change")
        // Only mapped readable, not executable: data, not code.
        #expect(reason([line(library, perms: "r--p")]) == nil)
        // For root, a file anyone may write still counts.
        chmod(library, 0o757)
        #expect(reason([line(library)], uid: 0) != nil)
    }

    static let root = geteuid() == 0

    /// What only root can set up: files owned by root, or given to another uid.
    @Test(.enabled(if: root, "needs root: files owned by root and by another uid"))
    func filesAndDirectoriesOfRootAreNotTheUsers() throws {
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let inner = directory.file("lib")
        mkdir(inner, 0o755)
        let library = inner + "/libplug.so"
        try ExecutableFile.copy(Self.systemLibrary, to: library, mode: 0o755)
        // Owned by root in root-owned directories: not the user's, nor root's own to count.
        #expect(reason([line(library)]) == nil)
        #expect(reason([line(library)], uid: 0) == nil)
        // An ancestor owned by the user: it could have swapped the whole tree.
        give(directory.path)
        #expect(reason([line(library)]) != nil)
        chown(directory.path, 0, 0)
        // A sticky world-writable directory (like /tmp) does not make root's file the user's.
        chmod(directory.path, 0o1777)
        #expect(reason([line(library)], uid: 0) == nil)
        // The path now names another file (inode 1): the directory alone decides, not the
        // user's file found at the path.
        chmod(directory.path, 0o755)
        give(library)
        #expect(reason(["7f00-7f01 r-xp 00000000 fd:01 1                          \(library)"]) == nil)
    }

    @Test func aDirectoryTheUserCanRenameInMakesItsFilesTheUsers() throws {
        let directory = TemporaryDirectory()
        let inner = directory.file("lib")
        mkdir(inner, 0o755)
        let library = inner + "/libplug.so"
        try ExecutableFile.copy(Self.systemLibrary, to: library, mode: 0o755)
        // World-writable without the sticky bit counts.
        chmod(directory.path, 0o777)
        #expect(reason([line(library)], uid: 0) != nil)
    }

    @Test func replacedDeletedAndMemoryFilesAreJudgedWithoutTheirContent() throws {
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let library = directory.file("libplug.so")
        try ExecutableFile.copy(Self.systemLibrary, to: library, mode: 0o755)
        give(library)
        // A library the system replaced under a running program (an upgrade) is not the user's.
        #expect(reason([line(Self.systemLibrary, deleted: true)]) == nil)
        #expect(reason(["7f00-7f01 r-xp 00000000 00:01 2048                       /memfd:payload (deleted)"]) == "it runs code from a memory file (memfd:payload)")
        // Lines that are not maps lines are passed over.
        #expect(reason(["", "garbage", "7f00-7f01 r-xp 0 fd:01 x /lib/a"]) == nil)
    }
}
