import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore

/// Starts vaultd in the background when no daemon answers: the `vaultd` next to the running
/// executable first, then the first one on PATH. Its log goes to `vaultd.log` beside the socket.
enum DaemonLauncher {
    static func start(socketPath: String, environment: [String: String]) throws {
        guard let executable = locate(environment: environment) else {
            throw VaultClientError.unavailable("no vaultd answers on \(socketPath) and no vaultd executable was found next to this program or on PATH")
        }
        let directory = FileSystem.parentDirectory(of: socketPath)
        try? FileSystem.createDirectories(directory, mode: 0o700)
        let logPath = directory + "/vaultd.log"
        let logFD = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        defer { if logFD >= 0 { close(logFD) } }

        let arguments = [executable, "--socket", socketPath]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let pid = vault_spawn_detached(executable, &argv, environ, logFD)
        if pid < 0 {
            throw VaultClientError.unavailable("could not start \(executable): \(Errno.current)")
        }
        // Reap it if it exits while we wait (another instance won the race); otherwise it
        // outlives us and init adopts it.
        Reaper.watch(pid)
    }

    static func locate(environment: [String: String]) -> String? {
        var candidates: [String] = []
        if let directory = ProcessEnvironment.executableDirectory { candidates.append(directory + "/vaultd") }
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
            candidates.append(directory + "/vaultd")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }
}

/// Collects exited children started by the launcher without blocking.
enum Reaper {
    static func watch(_ pid: pid_t) {
        var status: Int32 = 0
        _ = waitpid(pid, &status, WNOHANG)
    }
}
