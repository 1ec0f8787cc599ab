#if canImport(Glibc)
import Glibc
#endif

/// Where vaultd listens: `--socket` / `VAULT_SOCKET`, else `$XDG_RUNTIME_DIR/vault/vault.sock`,
/// else `/tmp/vault-<uid>/vault.sock` (a private directory named for the user).
public enum SocketLocation {
    public static func path(explicit: String? = nil, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let socket = environment["VAULT_SOCKET"], !socket.isEmpty { return socket }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/vault/vault.sock" }
        return "/tmp/vault-\(getuid())/vault.sock"
    }
}
