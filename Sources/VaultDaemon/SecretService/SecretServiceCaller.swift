import CVaultShims
import VaultCore
import VaultSystem

/// One bus connection that called the provider, as the bus described it when asked (as the
/// connection came onto the bus, or at its first call: `GetConnectionCredentials`): its uid, and the process that opened it, held by a pidfd: the
/// bus's own `ProcessFD` where the bus gives one (dbus-daemon 1.15.7+, dbus-broker), taken when
/// the connection was made. Otherwise (Debian 12's dbus-daemon 1.14) the bus reports the pid of
/// whoever called connect(2), which may have exited and its pid gone to another program before
/// the connection said Hello and came onto the bus: such a caller is bound to no process and no
/// allow rule matches it, unless vaultd runs with --trust-bus-pids. Then pidfd_open(2) on that
/// pid is kept if the process started no later than the connection came onto the bus (as
/// NameOwnerChanged announced it), which stops a pid reused after Hello, not one reused between
/// connect and Hello. A caller whose connection vaultd did not see appear (it connected before
/// vaultd) is bound to no process either. Once the process
/// has exited, the pidfd says so and the caller is nobody in particular. The pidfd is closed
/// when the last user lets go (the name left the bus and no call of it is still being answered).
final class SecretServiceCaller: Sendable {
    let uid: UInt32
    /// nil when the bus reported no pid.
    let process: PeerProcess?

    /// `appeared`: when the connection came onto the bus (CLOCK_BOOTTIME clock ticks), if vaultd
    /// saw it and may bind a caller by its pid; nil: without a ProcessFD, the caller is nobody.
    init(uid: UInt32, pid: Int32?, processFD: Int32, appeared: Int64?) {
        self.uid = uid
        guard let pid else {
            if processFD >= 0 { FileDescriptor(rawValue: processFD).close() }
            process = nil
            return
        }
        if processFD >= 0 {
            process = PeerProcess(pidfd: FileDescriptor(rawValue: processFD), pid: pid)
            return
        }
        let raw = vault_pidfd_open(pid)
        let started = raw >= 0 ? vault_process_start_ticks(pid) : -1
        guard raw >= 0, let appeared, started >= 0, started <= appeared else {
            if raw >= 0 { FileDescriptor(rawValue: raw).close() }
            process = PeerProcess(pidfd: nil, pid: pid, unidentified: appeared == nil ? Self.unbound : Self.startedLater)
            return
        }
        process = PeerProcess(pidfd: FileDescriptor(rawValue: raw), pid: pid)
    }

    static let unbound = "a D-Bus caller; the bus gives no ProcessFD, so vaultd cannot tell which process holds its connection (docs/secret-service.md: --trust-bus-pids)"
    static let startedLater = "a D-Bus caller; the process the bus names started after the connection came onto the bus, so it may not be the one holding it"

    deinit { process?.close() }

    /// Who the caller is now, as far as /proc tells while its pidfd shows the process still runs.
    func identify() -> CallerIdentity {
        process?.identify() ?? .unknown
    }
}
