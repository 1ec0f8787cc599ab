#if canImport(Glibc)
import Glibc
#endif
import VaultSystem

/// Replaces a file so that a crash at any instant leaves either the old or the new contents:
/// write a temp file in the same directory (created with O_EXCL|O_NOFOLLOW and mode 0600, so it
/// is new and ours and never a link), fsync it, give it `mode`, rename it over the target, fsync
/// the directory. On a failure before the rename the temp file is removed and the target is
/// untouched; when only the directory's flush fails, the target is the new file but not known to
/// be durable (a power loss may bring back the old one). The vault file, `vaultctl inject`'s
/// output and `vaultctl run`'s VAR_FILE files are written with it.
public enum AtomicFileWriter {
    public static let temporaryPrefix = ".vault-tmp-"

    /// Writes `bytes` to `path` with permissions `mode` (whatever the umask). With `createOnly`,
    /// an existing `path` is never replaced: the new file is linked into place and `EEXIST` is
    /// reported as `Errno.exists`.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, createOnly: Bool = false) throws {
        let directory = FileSystem.parentDirectory(of: path)
        let suffix = try storage("create", path) { try SystemRandom.bytes(6) }.map { String($0, radix: 16) }.joined()
        let temporary = directory + "/" + temporaryPrefix + FileSystem.lastComponent(of: path) + "." + suffix
        var needsCleanup = true
        defer { if needsCleanup { FileSystem.removeFileIfPresent(temporary) } }

        let fd = try storage("create", path) { try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) }
        try fd.closeAfter {
            try storage("write", path) { try fd.writeAll(bytes) }
            try storage("set the mode of", path) { _ = try retryingOnInterrupt { fchmod(fd.rawValue, mode) } }
            try storage("flush", path) { try fd.sync() }
        }
        if createOnly {
            try storage("create", path) { try FileSystem.link(temporary, to: path) }
            FileSystem.removeFileIfPresent(temporary)
        } else {
            try storage("replace", path) { try FileSystem.rename(temporary, to: path) }
        }
        needsCleanup = false
        try storage("flush the directory of", path) { try FileSystem.syncDirectory(directory) }
    }

    /// Removes temp files left by writers that died before renaming. Only safe under the vault lock.
    public static func removeLeftovers(besides path: String) {
        let directory = FileSystem.parentDirectory(of: path)
        let prefix = temporaryPrefix + FileSystem.lastComponent(of: path) + "."
        guard let names = try? FileSystem.contentsOfDirectory(directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            FileSystem.removeFileIfPresent(directory + "/" + name)
        }
    }

    /// Runs a file operation, turning an `Errno` into `VaultError.storage` naming the operation.
    public static func storage<R>(_ operation: String, _ path: String, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as Errno {
            throw VaultError.storage(operation: operation, path: path, errno: error)
        }
    }
}
