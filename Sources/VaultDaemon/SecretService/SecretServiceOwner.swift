import CGDBusShims
import Foundation
import VaultCore
import VaultSystem

/// Who serves the Secret Service on the session bus, as far as `migrate` must know: a vaultd
/// serving a vault file (it answers vault.Provider's VaultFile), or another provider (GNOME
/// Keyring, KeePassXC), or nobody. Two vaultds may share one vault file, one serving the Secret
/// Service from it: to the other, that provider looks like a Secret Service store of its own, and
/// migrating between the two would find every item already in its destination (the same file)
/// and then delete it from its source (the same file), that is, every item.
enum SecretServiceOwner {
    enum Identity: Equatable {
        case vaultd(vaultFile: String)
        /// A vaultd that does not say which vault file it serves (one older than vault.Provider).
        case silentVaultd(pid: Int32, executable: String)
        case other
    }

    /// Asks the owner of org.freedesktop.secrets on the bus at `address` (started by the bus when
    /// it is activatable, as libsecret would). Throws `unavailable` when the bus cannot be reached
    /// or the owner does not answer within `timeout` seconds. Blocks: not on the cooperative pool.
    static func identify(address: String, timeout: Double = 5) throws -> Identity {
        var error: UnsafeMutablePointer<GError>?
        var owner: guint32 = 0
        guard let path = vault_dbus_provider_vault_file(address, gint(timeout * 1000), &owner, &error) else {
            if error == nil {
                let pid = Int32(bitPattern: owner)
                if pid > 0, let executable = vaultdExecutable(of: pid) { return .silentVaultd(pid: pid, executable: executable) }
                return .other
            }
            throw VaultError.unavailable(
                "could not ask who serves the Secret Service on the session bus: \(SecretServiceProvider.message(taking: error)); nothing was migrated")
        }
        defer { g_free(path) }
        return .vaultd(vaultFile: String(cString: path))
    }

    /// The program `pid` runs, when it is a vaultd: named `vaultd`, or the same file as this one.
    static func vaultdExecutable(of pid: Int32) -> String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") else { return nil }
        // A program replaced on disk while it runs reads "PATH (deleted)".
        let path = executable.hasSuffix(" (deleted)") ? String(executable.dropLast(10)) : executable
        if (path as NSString).lastPathComponent == "vaultd" { return path }
        if let ours = try? FileStatus.of("/proc/self/exe", followSymlinks: true), let theirs = try? FileStatus.of("/proc/\(pid)/exe", followSymlinks: true),
           ours.device == theirs.device, ours.inode == theirs.inode {
            return path
        }
        return nil
    }

    /// Whether `served` (a provider's VaultFile) is the vault file at `path`: the same path, or
    /// the same file (device and inode) under another name.
    static func isSameFile(_ served: String, as path: String) -> Bool {
        if served == path { return true }
        guard let one = try? FileStatus.of(served, followSymlinks: true), let other = try? FileStatus.of(path, followSymlinks: true) else { return false }
        return one.device == other.device && one.inode == other.inode
    }
}
