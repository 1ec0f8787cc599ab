import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// What a connection checks before sending its first byte, so that no other user can pose as
/// vaultd: the socket's directory (examined without following symbolic links, every directory
/// above it too) must be the caller's and private, and the process listening must run as the
/// caller's own uid (`SO_PEERCRED`). Failing either, nothing is sent: `.unavailable` (exit 5).
extension VaultConnection {
    /// Checks the directory that holds `socketPath`. False when it does not exist yet, so that
    /// autostart may create it.
    @discardableResult
    static func checkSocketDirectory(of socketPath: String) throws(VaultClientError) -> Bool {
        guard socketPath.utf8.count <= 107 else {
            throw .unavailable(
                "the socket path \(socketPath) is \(socketPath.utf8.count) bytes, longer than the 107 a Unix socket allows: set VAULT_SOCKET (or XDG_RUNTIME_DIR) to a shorter path")
        }
        do {
            return try PrivateDirectory.check(FileSystem.parentDirectory(of: socketPath))
        } catch let problem as UntrustedPath {
            throw .unavailable("refusing to talk to vaultd on \(socketPath), nothing was sent: \(problem)")
        } catch {
            throw .unavailable("cannot examine the directory of \(socketPath), nothing was sent: \(error)")
        }
    }

    /// Checks that the process listening on `fd` runs as this process's uid.
    static func checkPeer(_ fd: FileDescriptor, socketPath: String) throws(VaultClientError) {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        guard vault_peer_credentials(fd.rawValue, &pid, &uid, &gid) == 0 else {
            throw .unavailable("cannot tell who listens on \(socketPath) (SO_PEERCRED: \(Errno.current)), so nothing was sent")
        }
        guard uid == getuid() else {
            throw .unavailable(
                "the process listening on \(socketPath) (pid \(pid)) runs as uid \(uid), not as you (uid \(getuid())), so it is not your vaultd and nothing was sent: stop it or have it removed, or set VAULT_SOCKET to your own vaultd's socket")
        }
    }
}
