#if canImport(Glibc)
import Glibc
#endif

/// Where vaultd listens: `--socket` / `VAULT_SOCKET`, else `$XDG_RUNTIME_DIR/vault/vault.sock`,
/// else `~/.local/state/vault/vault.sock`: a private directory under the user's home, which no
/// other user can pre-create or swap, unlike a name in /tmp (see docs/configuration.md, "Where
/// files live"). Daemon and clients check the directory before use (`PrivateDirectory`).
public enum SocketLocation {
    public static func path(explicit: String? = nil, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let socket = environment["VAULT_SOCKET"], !socket.isEmpty { return socket }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/vault/vault.sock" }
        return fallback(home: home(environment: environment))
    }

    /// The socket when `XDG_RUNTIME_DIR` is unset. Without a home directory at all, a directory
    /// named for the user in /tmp: others could pre-create it and so keep vault from starting,
    /// but never receive anything, since daemon and clients refuse a directory that is not the user's.
    static func fallback(home: String?) -> String {
        guard let home, home.hasPrefix("/") else { return "/tmp/vault-\(getuid())/vault.sock" }
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.local/state/vault/vault.sock"
    }

    /// `$HOME` when absolute, else the home directory in the user database.
    static func home(environment: [String: String]) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        return buffer.withUnsafeMutableBufferPointer { storage -> String? in
            // pw_dir points into `storage`, so it is read before the closure returns.
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            guard let base = storage.baseAddress, getpwuid_r(getuid(), &entry, base, storage.count, &result) == 0, result != nil,
                  let directory = entry.pw_dir else { return nil }
            return String(cString: directory)
        }
    }
}
