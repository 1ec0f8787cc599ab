#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import Synchronization
import VaultCore
import VaultSystem

/// The process at the other end of a connection, held by a pidfd taken when it was accepted:
/// SO_PEERPIDFD where the kernel has it (6.5+; the kernel takes it at connect, so it names the
/// connecting process even if that exited before the accept), else pidfd_open(2) on the
/// SO_PEERCRED pid. `identify` reads /proc/PID and then checks the pidfd still runs: while it
/// does, the pid cannot have been reused, so what was read belongs to this process.
///
/// A request sent by another process than the one that connected is answered as its sender
/// (`MessageSenders`), not as this. What this cannot know: a process of the same user that can
/// ptrace the caller (Yama `ptrace_scope` 0, or 1 for its own descendants) can make an allowed
/// program do anything. Rules tell programs apart; they are no wall between processes of one
/// user (docs/protocol.md, "Access rules").
///
/// What `identify` read is kept for the connection's next requests while /proc/PID/exe is still
/// the same file (device, inode, size, mtime, ctime: one `stat`) and the process still runs: an
/// `exec` of another program (or the program's file changed in place) is noticed by the `stat`,
/// and the process's exit by the same `stat` made in the /proc/PID directory opened when the
/// connection was accepted (after it, while the pidfd showed the process running): that directory
/// names the process, not its number, so a name looked up in it is not found once the process has
/// exited (a zombie has no exe either), even when the number has been given to another process.
/// Where that directory could not be opened, the path is stat'ed and the pidfd asked instead.
/// An interpreter's caller is read again each time, since an `exec` of the same interpreter may
/// run another script.
final class PeerProcess: Sendable {
    let pid: Int32
    private let pidfd: FileDescriptor?
    /// /proc/PID/exe, made once: `identify` stats it on every request where `processDirectory` is nil.
    private let executablePath: String
    /// /proc/PID (`O_PATH`), opened after the pidfd and kept only if the pidfd then still ran:
    /// `identify` stats "exe" in it on every request, which also fails once the process has exited.
    private let processDirectory: FileDescriptor?
    /// The identity last read, with the executable's status before it was read.
    private let known = AdaptiveLock<(executable: FileStatus, identity: CallerIdentity)?>(nil)
    /// The connection's socket, not owned: the connection closes it after `connectionClosed`.
    private let socket: FileDescriptor
    /// Why no pidfd was taken, for messages (`CallerIdentity.unidentified`).
    private let unidentified: String?

    init(socket: FileDescriptor, pid: Int32) {
        self.pid = pid
        executablePath = "/proc/\(pid)/exe"
        self.socket = socket
        unidentified = nil
        var raw = vault_peer_pidfd(socket.rawValue)
        if raw < 0 { raw = vault_pidfd_open(pid) }
        pidfd = raw >= 0 ? FileDescriptor(rawValue: raw) : nil
        processDirectory = pidfd.flatMap { Self.openProcessDirectory(pid: pid, pidfd: $0) }
    }

    /// /proc/PID, or nil when it cannot be opened or the process is no longer running once it is:
    /// opened after the pidfd was taken, it is that process's while the pidfd still runs.
    private static func openProcessDirectory(pid: Int32, pidfd: FileDescriptor) -> FileDescriptor? {
        guard let raw = try? retryingOnInterrupt({ vault_open_directory_path("/proc/\(pid)") }) else { return nil }
        let directory = FileDescriptor(rawValue: raw)
        guard vault_pidfd_running(pidfd.rawValue) == 1 else {
            directory.close()
            return nil
        }
        return directory
    }

    /// A process known by a pidfd taken elsewhere (the bus's ProcessFD, or pidfd_open right after
    /// the bus reported the pid), owned from now on; nil: no rule will match it. No socket of its
    /// own: `hasHungUp` is not for these.
    init(pidfd: FileDescriptor?, pid: Int32, unidentified: String? = nil) {
        self.pid = pid
        self.unidentified = unidentified
        executablePath = "/proc/\(pid)/exe"
        self.socket = FileDescriptor(rawValue: -1)
        self.pidfd = pidfd
        processDirectory = nil
    }

    func close() {
        pidfd?.close()
        processDirectory?.close()
    }

    /// Whether the peer has closed its end of the connection (or the process is gone), without
    /// reading anything: for an approver blocked in a long poll, whose thread cannot notice.
    /// POLLRDHUP (Linux; not exported to Swift by Glibc's module).
    private static let readHangUp: Int32 = 0x2000

    var hasHungUp: Bool {
        var entry = pollfd(fd: socket.rawValue, events: Int16(Self.readHangUp), revents: 0)
        guard poll(&entry, 1, 0) >= 0 else { return true }
        return entry.revents & Int16(Self.readHangUp | Int32(POLLHUP | POLLERR | POLLNVAL)) != 0
    }

    /// What can be established about the process now. Only the pid when the process has exited
    /// (or no pidfd could be taken): then no rule matches it.
    func identify() -> CallerIdentity {
        guard let pidfd else {
            var nobody = CallerIdentity(pid: pid)
            nobody.unidentified = unidentified
            return nobody
        }
        // Before anything is read: an exec after this stat makes the next request read it all again.
        let executable = processDirectory.map { try? $0.status(of: "exe") } ?? (try? FileStatus.of(executablePath))
        if let executable, let known = known.withLock({ $0 }), known.executable.sameFile(as: executable),
           processDirectory != nil || vault_pidfd_running(pidfd.rawValue) == 1 {
            return known.identity
        }
        let identity = read(pidfd)
        let keep = identity.executableHash != nil && identity.executable.map { !Self.isInterpreter($0) } == true
        let kept = keep ? executable.map { (executable: $0, identity: identity) } : nil
        known.withLock { $0 = kept }
        return identity
    }

    /// Everything `identify` reports, read from /proc now.
    private func read(_ pidfd: FileDescriptor) -> CallerIdentity {
        let unknown = CallerIdentity(pid: pid)
        let proc = "/proc/\(pid)"
        var identity = unknown
        identity.executable = Self.readLink(proc + "/exe")
        if let exe = try? FileDescriptor.open(proc + "/exe", O_RDONLY) {
            identity.executableHash = ExecutableHashes.shared.hash(of: exe)
            exe.close()
        }
        identity.workingDirectory = Self.readLink(proc + "/cwd")
        identity.unit = FileSystem.kernelText(proc + "/cgroup").flatMap(Self.unit(fromCgroup:))
        identity.injection = Self.injection(proc) ?? Self.mappedCode(proc, executable: identity.executable)
        if let executable = identity.executable, let family = InterpreterArguments.family(ofExecutable: FileSystem.lastComponent(of: executable)),
           let arguments = FileSystem.kernelText(proc + "/cmdline")?.split(separator: "\0", omittingEmptySubsequences: false).map(String.init),
           let script = InterpreterArguments.script(family, arguments) {
            // Relative to the process's working directory; realpath through /proc/PID/cwd gives
            // the path a rule names.
            let joined = script.hasPrefix("/") ? script : proc + "/cwd/" + script
            if let resolved = Self.realPath(joined) {
                identity.script = resolved
                identity.scriptHash = ExecutableHashes.shared.hash(ofFile: resolved)
            }
        }
        guard vault_pidfd_running(pidfd.rawValue) == 1 else { return unknown }
        return identity
    }

    // MARK: /proc

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The last `.service` or `.scope` of the cgroup v2 path ("0::/user.slice/.../app.service").
    static func unit(fromCgroup text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) ?? text.split(separator: "\n").last else { return nil }
        let path = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).last ?? ""
        return path.split(separator: "/").last(where: { $0.hasSuffix(".service") || $0.hasSuffix(".scope") }).map(String.init)
    }

    /// Programs that run a script named in their arguments.
    static func isInterpreter(_ executable: String) -> Bool {
        InterpreterArguments.family(ofExecutable: FileSystem.lastComponent(of: executable)) != nil
    }

    /// Why code not the program's own may run in the process (`CodeInjection`), from its
    /// environment; an environment that cannot be read whole counts as such a reason.
    static func injection(_ proc: String) -> String? {
        guard let fd = try? FileDescriptor.open(proc + "/environ", O_RDONLY) else { return "its environment cannot be read" }
        defer { fd.close() }
        guard let environ = try? fd.readAll(limit: environLimit) else { return "its environment is too large to check" }
        return CodeInjection.reason(environ: environ)
    }

    /// Why the process runs code its user can change (`MappedCode`), from its memory map; a map
    /// that cannot be read whole counts as such a reason.
    static func mappedCode(_ proc: String, executable: String?) -> String? {
        guard let maps = FileSystem.kernelText(proc + "/maps", limit: mapsLimit) else { return "its memory map cannot be read whole" }
        let program = executable.map { $0.hasSuffix(" (deleted)") ? String($0.dropLast(" (deleted)".count)) : $0 }
        return MappedCode.reason(maps: maps, root: proc + "/root", uid: geteuid(), executable: program)
    }

    /// /proc/PID/maps beyond this is not read: tens of thousands of mappings.
    static let mapsLimit = 4 << 20

    /// /proc/PID/environ beyond this is not read (the kernel's limit on a whole argv and environ
    /// is far larger, but an environment that large is no ordinary caller's); a caller whose
    /// environment cannot be read whole is taken as injected.
    static let environLimit = 1 << 20
}
