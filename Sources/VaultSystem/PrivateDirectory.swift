#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A directory only its user controls, checked the way ssh checks the path to a key: the
/// directory itself, examined without following a symbolic link, is a real directory owned by the
/// user with no group or other permissions; every directory above it (symbolic links there are
/// resolved first) is owned by root or the user and writable by no one else, except root-owned
/// sticky directories such as /tmp, where others cannot rename or remove what is not theirs.
/// Then no other user can pre-create it, swap it, or replace what is inside it.
public enum PrivateDirectory {
    /// Throws `UntrustedPath` when `directory` or a directory above it is unsafe, `Errno` when it
    /// cannot be examined. Returns false when it does not exist (yet): there is nothing to trust.
    @discardableResult
    public static func check(_ directory: String, user: UInt32 = FileSystem.currentUserID) throws -> Bool {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        guard directory.hasPrefix("/") else {
            throw UntrustedPath(path: directory, reason: .wrongKind(found: "a relative path", expected: "an absolute one"), user: user)
        }
        if directory == "/" {
            throw UntrustedPath(path: directory, reason: .wrongKind(found: "the root directory", expected: "a private directory"), user: user)
        }
        guard let parent = try resolved(FileSystem.parentDirectory(of: directory)) else { return false }
        try checkAncestors(parent, user: user)
        let name = FileSystem.lastComponent(of: directory)
        guard let status = try FileStatus.of((parent == "/" ? "" : parent) + "/" + name, followSymlinks: false) else { return false }
        if status.isSymbolicLink {
            throw UntrustedPath(path: directory, reason: .symbolicLink, owner: status.owner, user: user)
        }
        guard status.isDirectory else {
            throw UntrustedPath(path: directory, reason: .wrongKind(found: status.kind, expected: "a directory"), owner: status.owner, user: user)
        }
        guard status.owner == user else {
            throw UntrustedPath(path: directory, reason: .foreignOwner, owner: status.owner, mode: status.permissions, user: user)
        }
        guard status.permissions & 0o077 == 0 else {
            throw UntrustedPath(path: directory, reason: .openToOthers, owner: status.owner, mode: status.permissions, user: user)
        }
        return true
    }

    /// Creates `directory` (and missing parents) with mode 0700, then checks it as `check` does.
    /// An existing directory is used only when it passes.
    public static func create(_ directory: String, user: UInt32 = FileSystem.currentUserID) throws {
        // mkdir never follows a symbolic link in the last component; `check` refuses one anywhere.
        try FileSystem.createDirectories(directory, mode: 0o700)
        guard try check(directory, user: user) else { throw Errno.noSuchFile }
    }

    /// Every directory from / down to `path` (already resolved): owned by root or `user`, not
    /// writable by group or others unless it is a root-owned sticky directory.
    private static func checkAncestors(_ path: String, user: UInt32) throws {
        var current = ""
        for component in [""] + path.split(separator: "/").map(String.init) {
            current = component.isEmpty ? "/" : (current == "/" ? "" : current) + "/" + component
            guard let status = try FileStatus.of(current, followSymlinks: false) else { throw Errno.noSuchFile }
            if status.isSymbolicLink {
                throw UntrustedPath(path: current, reason: .symbolicLink, owner: status.owner, user: user)
            }
            guard status.isDirectory else {
                throw UntrustedPath(path: current, reason: .wrongKind(found: status.kind, expected: "a directory"), owner: status.owner, user: user)
            }
            guard status.owner == 0 || status.owner == user else {
                throw UntrustedPath(path: current, reason: .foreignOwner, owner: status.owner, mode: status.permissions, user: user)
            }
            let sticky = status.permissions & UInt32(S_ISVTX) != 0 && status.owner == 0
            guard status.permissions & 0o022 == 0 || sticky else {
                throw UntrustedPath(path: current, reason: .writableByOthers, owner: status.owner, mode: status.permissions, user: user)
            }
        }
    }

    /// `path` with every symbolic link resolved, or nil when it does not exist.
    private static func resolved(_ path: String) throws -> String? {
        guard let pointer = realpath(path, nil) else {
            let error = Errno.current
            if error == .noSuchFile || error == Errno(ENOTDIR) { return nil }
            throw error
        }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
