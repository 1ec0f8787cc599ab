import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// Starts vaultd in the background when no daemon answers: the `vaultd` next to the running
/// executable (found through /proc/self/exe) first, then the first one in an absolute PATH entry;
/// never one in the current directory or a relative PATH entry, which whoever chose the working
/// directory controls. Its log goes to `vaultd.log` beside the socket, opened safely
/// (`FileDescriptor.openPrivateLog`); when that file is unsafe (a link, a FIFO, another owner, a
/// wrong mode) nothing is started and the error says what to remove.
enum DaemonLauncher {
    /// A vaultd just started: its pid (to reap it if it exits while being waited for) and where
    /// in its log its own lines begin.
    struct Launched {
        let pid: pid_t
        let executable: String
        let logPath: String
        let logOffset: Int64

        /// Why it exited without answering: the last line it wrote to its log (vaultd states
        /// a start-up failure in one line), bounded and made safe for a terminal.
        func failure() -> String {
            let reason = lastLogLine().map { ": \($0)" } ?? " without saying why"
            return "vaultd (\(executable)) exited at start\(reason) (its log: \(logPath))"
        }

        private func lastLogLine() -> String? {
            guard let fd = try? FileDescriptor.open(logPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
            defer { fd.close() }
            let size = (try? fd.status().size) ?? 0
            // Only what this vaultd wrote, and no more than its last 4 KiB.
            let start = max(logOffset, size - 4096)
            guard size > start, lseek(fd.rawValue, off_t(start), SEEK_SET) >= 0, let bytes = try? fd.readAll(limit: 8192) else { return nil }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { String($0).replacingControlCharacters() }
            // vaultd's own "vaultd: ..." line when there is one (a usage text may follow it).
            guard let last = lines.last(where: { $0.hasPrefix("vaultd: ") }) ?? lines.last(where: { !$0.allSatisfy { $0 == " " } }) else { return nil }
            let line = last.hasPrefix("vaultd: ") ? String(last.dropFirst(8)) : last
            return line.count > 1000 ? String(line.prefix(1000)) + "..." : line
        }
    }

    static func start(socketPath: String, environment: [String: String]) throws -> Launched {
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
        let logOffset = (try? log.status().size) ?? 0

        let arguments = [executable, "--socket", socketPath]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let pid = vault_spawn_detached(executable, &argv, environ, log.rawValue)
        if pid < 0 {
            throw VaultClientError.unavailable("could not start \(executable): \(Errno.current)")
        }
        return Launched(pid: pid, executable: executable, logPath: logPath, logOffset: logOffset)
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
