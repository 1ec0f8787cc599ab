import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore

/// Starts vaultd in the background when no daemon answers: the `vaultd` next to the running
/// executable first, then the first one on PATH. Its log goes to `vaultd.log` beside the socket.
enum DaemonLauncher {
    /// Returns the pid, so the caller can reap it if it exits while being waited for.
    static func start(socketPath: String, environment: [String: String]) throws -> pid_t {
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
        return pid
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
