import Foundation
import Testing
import VaultCore
import VaultTestSupport
import VaultSystem

/// `FileDescriptor.openPrivateLog`, which opens vaultd's `--log-file` and the autostart log:
/// never through a link, never blocking on a FIFO, a regular file of the user's with mode 0600.
@Suite struct PrivateLogTests {
    func problem(_ path: String, user: UInt32 = FileSystem.currentUserID) -> UntrustedPath? {
        do {
            try FileDescriptor.openPrivateLog(path, user: user).close()
            return nil
        } catch {
            return error as? UntrustedPath
        }
    }

    func append(_ text: String, to path: String) throws {
        let fd = try FileDescriptor.openPrivateLog(path)
        try fd.closeAfter { try fd.writeAll(Array(text.utf8)) }
    }

    @Test func aNewLogIsCreated0600WhateverTheUmaskAndAppendedTo() throws {
        let scratch = TemporaryDirectory()
        let log = scratch.path + "/vaultd.log"
        umask(0)
        defer { umask(0o022) }
        try append("one\n", to: log)
        try append("two\n", to: log)
        #expect(try FileStatus.of(log)?.permissions == 0o600)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "one\ntwo\n")
    }

    @Test func aLinkIsNotFollowedEvenToAFileOfTheUsers() throws {
        let scratch = TemporaryDirectory()
        let target = scratch.path + "/bashrc"
        FileManager.default.createFile(atPath: target, contents: Data("original\n".utf8), attributes: [.posixPermissions: 0o600])
        symlink(target, scratch.path + "/vaultd.log")
        #expect(problem(scratch.path + "/vaultd.log")?.reason == .symbolicLink)
        symlink(scratch.path + "/nothing-yet", scratch.path + "/dangling.log")
        #expect(problem(scratch.path + "/dangling.log")?.reason == .symbolicLink)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/nothing-yet"))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "original\n")
    }

    @Test func aFIFOIsRefusedAtOnceWithOrWithoutAReader() throws {
        let scratch = TemporaryDirectory()
        let fifo = scratch.path + "/vaultd.log"
        mkfifo(fifo, 0o600)
        let start = Date()
        #expect(problem(fifo)?.reason == .wrongKind(found: "a FIFO", expected: "a regular file"))
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        #expect(problem(fifo)?.reason == .wrongKind(found: "a FIFO", expected: "a regular file"))
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test func anotherOwnerAModeOtherThan0600OrADirectoryIsRefused() throws {
        let scratch = TemporaryDirectory()
        let log = scratch.path + "/vaultd.log"
        FileManager.default.createFile(atPath: log, contents: nil, attributes: [.posixPermissions: 0o644])
        let loose = problem(log)
        #expect(loose?.reason == .wrongMode(expected: 0o600) && loose?.mode == 0o644)
        #expect(loose.map { "\($0)" }?.contains("chmod 600 \(log)") == true)
        chmod(log, 0o600)
        chown(log, 4242, 4242)
        let foreign = problem(log)
        #expect(foreign?.reason == .foreignOwner && foreign?.owner == 4242)
        #expect(problem(log, user: 4242) == nil)
        #expect(problem(scratch.path)?.reason == .wrongKind(found: "a directory", expected: "a regular file"))
    }
}
