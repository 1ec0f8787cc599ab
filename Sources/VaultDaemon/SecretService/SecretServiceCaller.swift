import CVaultShims
import VaultCore

/// One bus connection that called the provider, as the bus described it at its first call
/// (`GetConnectionCredentials`): its uid, and the process that opened it, held by a pidfd taken
/// then, the bus's own `ProcessFD` where the bus gives one (dbus-daemon 1.15.7+, dbus-broker),
/// else pidfd_open(2) on the reported pid at once. Once that process has exited, the pidfd says
/// so and the caller is identified as nobody in particular (no allow rule matches it), even if
/// its pid is given to another process. The pidfd is closed when the last user lets go (the
/// name left the bus and no call of it is still being answered).
final class SecretServiceCaller: Sendable {
    let uid: UInt32
    /// nil when the bus reported no pid.
    let process: PeerProcess?

    init(uid: UInt32, pid: Int32?, processFD: Int32) {
        self.uid = uid
        guard let pid else {
            if processFD >= 0 { FileDescriptor(rawValue: processFD).close() }
            process = nil
            return
        }
        let raw = processFD >= 0 ? processFD : vault_pidfd_open(pid)
        process = PeerProcess(pidfd: raw >= 0 ? FileDescriptor(rawValue: raw) : nil, pid: pid)
    }

    deinit { process?.close() }

    /// Who the caller is now, as far as /proc tells while its pidfd shows the process still runs.
    func identify() -> CallerIdentity {
        process?.identify() ?? .unknown
    }
}
