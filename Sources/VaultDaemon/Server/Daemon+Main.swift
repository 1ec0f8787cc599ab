#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import VaultCore
import VaultProtocol
import VaultSystem

/// vaultd's process: configuration, logging, process hygiene, systemd socket activation, then
/// serving until SIGTERM.
extension Daemon {
    public static func main(arguments: [String], environment inherited: [String: String]) -> Never {
        // First of all, before any thread or descriptor exists: crash output without memory.
        let backtraceProblem = ProcessHygiene.reexecuteWithSafeCrashOutput(environment: inherited)
        ProcessHygiene.restoreProcessName()
        ProcessHygiene.fixMmapThreshold()
        // systemd socket activation: our socket is fd 3 when LISTEN_PID names us. The variables
        // are not passed on (nor seen by the configuration).
        var environment = inherited
        var inheritedSocket: FileDescriptor?
        if environment["LISTEN_PID"] == String(getpid()), let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1 {
            inheritedSocket = FileDescriptor(rawValue: 3)
        }
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
            unsetenv(name)
            environment[name] = nil
        }

        var configuration: DaemonConfiguration
        do {
            switch try DaemonConfiguration.parse(arguments: arguments, environment: environment) {
            case .run(let parsed): configuration = parsed
            case .help: finish(0, DaemonConfiguration.usage, to: 1)
            case .version: finish(0, "vaultd \(VaultVersion.string)\n", to: 1)
            }
        } catch {
            finish(error.exitStatus, "vaultd: \(error.message)\n")
        }

        if let logFile = configuration.logFile {
            // Never through a link, never blocking on a FIFO: a regular file of ours, mode 0600.
            let fd: FileDescriptor
            do {
                fd = try FileDescriptor.openPrivateLog(logFile)
            } catch let problem as UntrustedPath {
                finish(1, "vaultd: refusing the log file: \(problem)\n")
            } catch {
                finish(1, "vaultd: cannot open the log file \(logFile): \(error)\n")
            }
            dup2(fd.rawValue, 2)
            fd.close()
        }
        let logger = Logger(handler: StandardErrorLogHandler(environment: environment), minimumLevel: configuration.verbose ? .debug : .info)
        if let backtraceProblem {
            logger.warning("\(backtraceProblem); a crash report may include register contents")
        }
        if let lowered = configuration.fitConnections(toOpenFileLimit: ProcessHygiene.raiseOpenFileLimit()) {
            logger.notice(lowered)
        }
        ProcessHygiene.ignoreSIGPIPE()
        if let problem = ProcessHygiene.disableCoreDumps() {
            logger.warning("could not disable core dumps: \(problem)")
        }

        let daemon = Daemon(configuration: configuration, logger: logger)
        do {
            try daemon.start(inheritedSocket: inheritedSocket)
        } catch let error as SocketListener.SetupError {
            if case .alreadyRunning = error {
                logger.notice("\(error); this instance exits")
                exit(0)
            }
            finish(1, "vaultd: \(error)\n")
        } catch {
            finish(1, "vaultd: \(error)\n")
        }
        dispatchMain()
    }

    private static func finish(_ status: Int32, _ text: String, to fd: Int32 = 2) -> Never {
        try? FileDescriptor(rawValue: fd).writeAll(Array(text.utf8))
        exit(status)
    }
}
