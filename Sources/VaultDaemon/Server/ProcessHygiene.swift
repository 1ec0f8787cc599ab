import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// Process-wide protections for a daemon that holds keys.
public enum ProcessHygiene {
    /// Core dumps off and not dumpable; returns an error description when the kernel refused.
    public static func disableCoreDumps() -> String? {
        vault_disable_core_dumps() == 0 ? nil : Errno.current.description
    }

    /// glibc's allocator serves blocks from 128 KiB up with mmap, returned to the kernel when
    /// freed, at a fixed threshold. By default the threshold rises (up to 32 MiB) each time such a
    /// block is freed, after which the file store's whole-vault buffers (several MiB at 10,000
    /// items) come from the heap and stay resident: at 10,000 items vaultd held 52 to 66 MiB
    /// after a few writes, 36 MiB with the threshold fixed, at the price of faulting those
    /// buffers in again on each write (docs/performance.md, "vaultd's memory"). False when glibc
    /// refused.
    @discardableResult
    public static func fixMmapThreshold() -> Bool {
        vault_set_mmap_threshold(128 * 1024) == 1
    }

    /// Writes to a closed socket must be an EPIPE error for the writer, not a fatal signal.
    public static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Raises the soft open-file limit to the hard one and returns the soft limit now in force
    /// (what the kernel reports, if raising was refused).
    public static func raiseOpenFileLimit() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limits = rlimit()
        guard getrlimit(resource, &limits) == 0 else { return 1024 }  // Linux's usual soft limit
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(resource, &raised) == 0 { limits = raised }
        }
        return limits.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limits.rlim_cur)
    }

    /// What the Swift runtime's crash handler may print: a symbolic backtrace of the crashed thread,
    /// without the register dump (which shows the memory each register points at, possibly key
    /// material), without the image list, with paths sanitized, never waiting for a terminal.
    public static let backtraceSettings =
        "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,sanitize=yes,output-to=stderr"

    /// The runtime reads `SWIFT_BACKTRACE` before `main`, so setting it now is too late for this
    /// process: when it is not `backtraceSettings`, vaultd executes itself again (same pid, same
    /// arguments and descriptors) with it set. The new image finds the variable set and goes on, so
    /// this happens at most once. Returns only when no re-execution is needed, or with the reason
    /// it failed (vaultd then runs with the runtime's defaults).
    public static func reexecuteWithSafeCrashOutput(environment: [String: String]) -> String? {
        guard environment["SWIFT_BACKTRACE"] != backtraceSettings else { return nil }
        guard setenv("SWIFT_BACKTRACE", backtraceSettings, 1) == 0,
              getenv("SWIFT_BACKTRACE").map({ String(cString: $0) }) == backtraceSettings else {
            return "cannot set SWIFT_BACKTRACE: \(Errno.current)"
        }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        return "cannot re-execute /proc/self/exe to apply SWIFT_BACKTRACE: \(Errno.current)"
    }

    /// After executing `/proc/self/exe` the kernel names the process "exe" (in `ps`, `pidof`, the
    /// journal): give it its own name back, from argv[0].
    public static func restoreProcessName() {
        guard let reader = try? FileDescriptor.open("/proc/self/comm", O_RDONLY | O_CLOEXEC) else { return }
        let current = try? reader.readAll(limit: 64)
        reader.close()
        guard current == Array("exe\n".utf8), let writer = try? FileDescriptor.open("/proc/self/comm", O_WRONLY | O_CLOEXEC) else { return }
        defer { writer.close() }
        let name = CommandLine.arguments.first.map { FileSystem.lastComponent(of: $0) } ?? ""
        try? writer.writeAll(Array((name.isEmpty ? "vaultd" : name).utf8.prefix(15)))
    }
}
