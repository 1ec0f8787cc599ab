import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore

/// Starts vaultd in the background when no daemon answers: the `vaultd` next to the running
/// executable (found through /proc/self/exe) first, then the first one in an absolute PATH entry;
/// never one in the current directory or a relative PATH entry, which whoever chose the working
/// directory controls. Its log goes to `vaultd.log` beside the socket, opened safely
/// (`FileDescriptor.openPrivateLog`); when that file is unsafe (a link, a FIFO, another owner, a
/// wrong mode) nothing is started and the error says what to remove.
enum DaemonLauncher {
    /// Returns the pid, so the caller can reap it if it exits while being waited for.
    static func start(socketPath: String, environment: [String: String]) throws -> pid_t {
        guard let executable = locate(environment: environment) else {
            throw VaultClientError.unavailable(
                "no vaultd answers on \(socketPath) and no vaultd executable was found next to this program or in an absolute PATH entry (relative ones and the current directory are never used)")
        }
        let directory = FileSystem.parentDirectory(of: socketPath)
        let logPath = directory + "/vaultd.log"
        let log: FileDescriptor
        do {
            try PrivateDirectory.create(directory)
            log = try FileDescriptor.openPrivateLog(logPath)
        } catch let problem as UntrustedPath {
            throw VaultClientError.unavailable("not starting vaultd: \(problem)")
        } catch {
            throw VaultClientError.unavailable("not starting vaultd: cannot create \(directory) or open its log \(logPath): \(error)")
        }
        defer { log.close() }

        let arguments = [executable, "--socket", socketPath]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let pid = vault_spawn_detached(executable, &argv, environ, log.rawValue)
        if pid < 0 {
            throw VaultClientError.unavailable("could not start \(executable): \(Errno.current)")
        }
        return pid
    }

    /// The vaultd to start: beside this executable, else in the first absolute PATH entry that has one.
    static func locate(environment: [String: String]) -> String? {
        candidates(executableDirectory: ProcessEnvironment.executableDirectory, path: environment["PATH"]).first { access($0, X_OK) == 0 }
    }

    /// Where to look, in order. Only absolute directories: ".", "" and "bin" would mean the
    /// current directory, which another user may have chosen for us.
    static func candidates(executableDirectory: String?, path: String?) -> [String] {
        let directories = [executableDirectory].compactMap { $0 }
            + (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        return directories.filter { $0.hasPrefix("/") }.map { ($0.hasSuffix("/") ? String($0.dropLast()) : $0) + "/vaultd" }
    }
}
