import Foundation
import Testing
import VaultCore
import VaultTestSupport
import VaultSystem

/// `PrivateDirectory`: the check daemon and clients make of the socket's directory, and the
/// directories above it, without following symbolic links. The tests run as root, so other
/// owners come from chown and other users from the `user` parameter.
@Suite struct PrivateDirectoryTests {
    static let someone: UInt32 = 4242

    func reason(_ body: () throws -> Void) -> UntrustedPath? {
        do {
            try body()
            return nil
        } catch {
            return error as? UntrustedPath
        }
    }

    @Test func createMakesEveryMissingComponent0700AndThenPasses() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.path + "/a/b/vault"
        umask(0)
        defer { umask(0o022) }
        try PrivateDirectory.create(directory)
        for path in [scratch.path + "/a", scratch.path + "/a/b", directory] {
            #expect(try FileStatus.of(path)?.permissions == 0o700, "\(path)")
        }
        #expect(try PrivateDirectory.check(directory))
        #expect(try !PrivateDirectory.check(scratch.path + "/missing/vault"))
    }

    @Test func aSymbolicLinkIsRefusedEvenToAPrivateDirectory() throws {
        let scratch = TemporaryDirectory()
        mkdir(scratch.path + "/real", 0o700)
        symlink(scratch.path + "/real", scratch.path + "/link")
        let problem = reason { try PrivateDirectory.check(scratch.path + "/link") }
        #expect(problem?.reason == .symbolicLink && problem?.path == scratch.path + "/link")
        // create() does not go through it either.
        #expect(reason { try PrivateDirectory.create(scratch.path + "/link") }?.reason == .symbolicLink)
        // A dangling link: not created through.
        symlink(scratch.path + "/elsewhere", scratch.path + "/dangling")
        #expect(reason { try PrivateDirectory.create(scratch.path + "/dangling") }?.reason == .symbolicLink)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/elsewhere"))
    }

    @Test func anotherOwnerOrGroupAndOtherBitsAreRefused() throws {
        let scratch = TemporaryDirectory()
        let directory = scratch.path + "/vault"
        mkdir(directory, 0o700)
        chown(directory, Self.someone, Self.someone)
        let foreign = reason { try PrivateDirectory.check(directory) }
        #expect(foreign?.reason == .foreignOwner && foreign?.owner == Self.someone)
        #expect(foreign.map { "\($0)" }?.contains("owned by uid \(Self.someone), not by you (uid 0)") == true)
        #expect(try PrivateDirectory.check(directory, user: Self.someone))

        chown(directory, 0, 0)
        chmod(directory, 0o750)
        let open = reason { try PrivateDirectory.check(directory) }
        #expect(open?.reason == .openToOthers && open?.mode == 0o750)
        #expect(open.map { "\($0)" }?.contains("chmod 700 \(directory)") == true)

        FileManager.default.createFile(atPath: scratch.path + "/file", contents: nil)
        #expect(reason { try PrivateDirectory.check(scratch.path + "/file") }?.reason == .wrongKind(found: "a regular file", expected: "a directory"))
        #expect(reason { try PrivateDirectory.check("relative/vault") }?.reason == .wrongKind(found: "a relative path", expected: "an absolute one"))
    }

    @Test func directoriesAboveMustBeRootsOrTheUsersAndNotWritableByOthers() throws {
        let scratch = TemporaryDirectory()
        let above = scratch.path + "/above"
        let directory = above + "/vault"
        mkdir(above, 0o755)
        mkdir(directory, 0o700)
        chown(directory, Self.someone, Self.someone)
        // Owned by root, not writable by others: fine for any user.
        #expect(try PrivateDirectory.check(directory, user: Self.someone))

        chmod(above, 0o777)
        let writable = reason { try PrivateDirectory.check(directory, user: Self.someone) }
        #expect(writable?.reason == .writableByOthers && writable?.path == above && writable?.mode == 0o777)
        // Root-owned and sticky, like /tmp: others cannot rename or remove what is not theirs.
        chmod(above, 0o1777)
        #expect(try PrivateDirectory.check(directory, user: Self.someone))

        // Another user's directory above: that user could swap ours.
        chmod(above, 0o755)
        chown(above, Self.someone + 1, Self.someone + 1)
        let foreign = reason { try PrivateDirectory.check(directory, user: Self.someone) }
        #expect(foreign?.reason == .foreignOwner && foreign?.path == above && foreign?.owner == Self.someone + 1)
    }

    @Test func symbolicLinksAboveAreResolvedAndWhatTheyLeadToIsChecked() throws {
        let scratch = TemporaryDirectory()
        mkdir(scratch.path + "/real", 0o755)
        mkdir(scratch.path + "/real/vault", 0o700)
        symlink(scratch.path + "/real", scratch.path + "/home")
        #expect(try PrivateDirectory.check(scratch.path + "/home/vault"))
        chmod(scratch.path + "/real", 0o777)
        let problem = reason { try PrivateDirectory.check(scratch.path + "/home/vault") }
        #expect(problem?.reason == .writableByOthers && problem?.path == scratch.path + "/real")
    }
}
