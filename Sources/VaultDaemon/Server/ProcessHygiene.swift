import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore

/// Process-wide protections for a daemon that holds keys.
public enum ProcessHygiene {
    /// Core dumps off and not dumpable; returns an error description when the kernel refused.
    public static func disableCoreDumps() -> String? {
        vault_disable_core_dumps() == 0 ? nil : Errno.current.description
    }

    /// Writes to a closed socket must be an EPIPE error for the writer, not a fatal signal.
    public static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }
}
