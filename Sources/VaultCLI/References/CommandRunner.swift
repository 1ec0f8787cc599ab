#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import Dispatch
import VaultCore
import VaultSystem

/// Runs `vaultctl run`'s COMMAND and stands in for it: forwards signals, masks secrets in its
/// output, restarts or signals it when a watched token changes, and returns its exit status.
///
/// COMMAND is started with posix_spawnp in vaultctl's process group, with exactly the given
/// environment. INT, TERM, HUP, QUIT, USR1, USR2 and WINCH sent to vaultctl are sent on to it,
/// except those the kernel sent (the terminal's ^C, ^\ and window changes, which COMMAND, in the
/// same foreground process group, already received). Its stdout and stderr are its own when they
/// are terminals or masking is off; otherwise pipes that vaultctl reads on threads of its own,
/// writing what `masker` lets through.
final class CommandRunner {
    enum RefreshAction: Equatable {
        case restart
        case signal(Int32)
    }

    static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH]
    /// The signals `--on-refresh` accepts, by name.
    static let signalNames: [String: Int32] = [
        "HUP": SIGHUP, "INT": SIGINT, "QUIT": SIGQUIT, "TERM": SIGTERM, "USR1": SIGUSR1, "USR2": SIGUSR2,
        "WINCH": SIGWINCH, "ALRM": SIGALRM, "CONT": SIGCONT,
    ]
    /// Seconds between TERM and KILL when restarting.
    static let restartGrace = 10.0

    let command: [String]
    let masker: SecretMasker?
    let onRefresh: RefreshAction?
    let watcher: TokenWatcher?
    /// The environment for the next start, "NAME=VALUE" each.
    let environment: () -> [[UInt8]]
    /// Called after a watched token changed, before COMMAND is restarted or signalled (VAR_FILE files).
    let refreshed: () throws -> Void

    init(command: [String], masker: SecretMasker?, onRefresh: RefreshAction?, watcher: TokenWatcher?,
         environment: @escaping () -> [[UInt8]], refreshed: @escaping () throws -> Void) {
        self.command = command
        self.masker = masker
        self.onRefresh = onRefresh
        self.watcher = watcher
        self.environment = environment
        self.refreshed = refreshed
    }

    /// Runs COMMAND until it exits (for good, when restarted) and returns the exit status to
    /// give: COMMAND's, or 128+N when signal N killed it; 127 when it cannot be found, 126 when
    /// it cannot be run.
    func run() throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let signals = Self.forwarded + [SIGCHLD]
        let signalPipe = signals.withUnsafeBufferPointer { vault_signal_pipe($0.baseAddress, Int32($0.count)) }
        guard signalPipe >= 0 else { throw VaultError.internal("cannot set up signal forwarding: \(Errno.current)") }
        let pumps = try [1, 2].map { fd in try masker.flatMap { Terminal.isTerminal(fd) ? nil : try OutputPump(to: fd, masker: $0) } }

        var child = try start(pumps)
        guard child != nil else { return finish(pumps, status: spawnFailure) }
        // Restarting: TERM was sent, KILL follows at `killAt`, and a new COMMAND once it exited.
        var restarting = false, stopping = false
        var killAt: Double?
        while true {
            var fds = [pollfd(fd: signalPipe, events: Int16(POLLIN), revents: 0)]
            if let watcher { fds.append(pollfd(fd: watcher.notifier.rawValue, events: Int16(POLLIN), revents: 0)) }
            let timeout = killAt.map { Int32(max(0, ($0 - Clock.monotonicSeconds()) * 1000)) } ?? -1
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR { throw VaultError.internal("poll failed: \(Errno.current)") }
            if let deadline = killAt, Clock.monotonicSeconds() >= deadline, let pid = child {
                kill(pid, SIGKILL)
                killAt = nil
            }
            if fds[0].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                let count = bytes.withUnsafeMutableBytes { read(signalPipe, $0.baseAddress, $0.count) }
                for byte in bytes.prefix(max(count, 0)) {
                    let number = Int32(byte & 0x7F), fromKernel = byte & 0x80 != 0
                    if number == SIGCHLD { continue }
                    // Asked to stop while restarting: the old COMMAND's exit ends the run.
                    if restarting && [SIGINT, SIGTERM, SIGHUP, SIGQUIT].contains(number) { stopping = true }
                    if !fromKernel, let pid = child { kill(pid, number) }
                }
                // Any byte may stand for several exits: reap whenever the pipe was readable.
                if let pid = child, let status = Self.reap(pid) {
                    guard restarting && !stopping else { return finish(pumps, status: status) }
                    restarting = false
                    killAt = nil
                    child = try start(pumps)
                    if child == nil { return finish(pumps, status: spawnFailure) }
                }
            }
            if fds.count > 1, fds[1].revents != 0, let watcher {
                watcher.acknowledge()
                try refreshed()
                switch onRefresh {
                case .restart where !restarting:
                    if let pid = child {
                        kill(pid, SIGTERM)
                        restarting = true
                        killAt = Clock.monotonicSeconds() + Self.restartGrace
                    }
                case .signal(let number):
                    if let pid = child { kill(pid, number) }
                default: break
                }
            }
        }
    }

    private var spawnFailure: Int32 = 0

    /// Starts COMMAND; nil (with `spawnFailure` set and the reason printed) when it cannot.
    private func start(_ pumps: [OutputPump?]) throws -> pid_t? {
        let pid = Self.spawn(command, environment: environment(), stdout: pumps[0]?.writeEnd ?? -1, stderr: pumps[1]?.writeEnd ?? -1)
        guard pid > 0 else {
            let error = Errno.current
            spawnFailure = error == .noSuchFile ? 127 : 126
            Output.error("cannot run '\(command[0].replacingControlCharacters())': \(error)")
            return nil
        }
        return pid
    }

    /// Starts `command` with exactly `environment` ("NAME=VALUE" each), stdout and stderr on the
    /// descriptors given (inherited when negative); -1 with errno set when it cannot.
    static func spawn(_ command: [String], environment entries: [[UInt8]], stdout: Int32 = -1, stderr: Int32 = -1) -> pid_t {
        let argv = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = entries.map { entry in
            let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: entry.count + 1)
            pointer.initialize(from: entry, count: entry.count)
            pointer[entry.count] = 0
            return UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: CChar.self)
        } + [nil]
        let pid = vault_spawn_command(command[0], argv, envp, stdout, stderr)
        let saved = errno
        argv.forEach { free($0) }
        for (pointer, entry) in zip(envp, entries) {
            // The values may be secrets: wiped before the memory is given back.
            guard let pointer else { continue }
            SecretBytes.wipe(UnsafeMutableRawBufferPointer(start: pointer, count: entry.count + 1))
            pointer.deallocate()
        }
        errno = saved
        return pid
    }

    /// The exit status to give when `pid` has exited; nil while it runs.
    static func reap(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == -1 && errno == EINTR { continue }
            guard result == pid else { return nil }
            break
        }
        // WIFEXITED / WTERMSIG, which Swift does not import.
        let signal = status & 0x7F
        if signal == 0 { return (status >> 8) & 0xFF }
        return signal == 0x7F ? nil : 128 + signal
    }

    /// Closes the pipes' write ends and waits until everything written to them went out.
    private func finish(_ pumps: [OutputPump?], status: Int32) -> Int32 {
        for pump in pumps { pump?.finish() }
        return status
    }
}

/// One of COMMAND's output streams through a pipe: a thread reads it, masks it and writes it to `fd`.
final class OutputPump: Sendable {
    let writeEnd: Int32
    private let done = DispatchSemaphore(value: 0)

    init(to fd: Int32, masker: SecretMasker) throws {
        var ends: [Int32] = [0, 0]
        _ = try retryingOnInterrupt { vault_pipe(&ends, O_CLOEXEC) }
        writeEnd = ends[1]
        let readEnd = FileDescriptor(rawValue: ends[0]), output = FileDescriptor(rawValue: fd)
        let done = self.done
        guard DetachedThread.start(stackSize: 256 * 1024, {
            var stream = SecretMasker.Stream()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = (try? buffer.withUnsafeMutableBytes { try readEnd.read(into: $0) }) ?? 0
                let masked = masker.mask(Array(buffer.prefix(count)), &stream, atEnd: count == 0)
                // A reader that went away: stop reading, so COMMAND sees its pipe close too.
                do { try output.writeAll(masked) } catch { break }
                if count == 0 { break }
            }
            buffer.withUnsafeMutableBytes { SecretBytes.wipe($0) }
            readEnd.close()
            done.signal()
        }) else {
            readEnd.close()
            Glibc.close(ends[1])
            throw VaultError.internal("cannot start a thread to mask COMMAND's output")
        }
    }

    /// Closes vaultctl's write end and waits until the stream ends (every writer closed it).
    func finish() {
        Glibc.close(writeEnd)
        done.wait()
    }
}
