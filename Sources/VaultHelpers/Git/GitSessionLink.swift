#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// A host linked to a vault sign-in session, read from git's own configuration so git's URL
/// matching applies (`credential.<url>.*`, gitcredentials(7)):
///
///     git config --global credential.https://git.example.com.vaultSession SERVICE
///     git config --global credential.https://git.example.com.vaultSessionAccount ACCOUNT   # optional
///
/// Found by running `git config -z --get-urlmatch credential URL` (the `git` of the first
/// absolute PATH entry that has one; git puts its exec-path first when it runs a helper), which
/// also sees `git -c` settings through the environment git passes down; only when one of the
/// files or settings that git would read names `vaultSession` at all (`GitConfigSources`), so a
/// `get` without any linked host runs no git.
struct GitSessionLink: Equatable {
    var service: String
    var account: String?

    /// The most output `git config` may send (a few settings; anything larger is refused).
    static let maxOutputBytes = 64 * 1024

    /// The session linked to `url`, nil when none is. git is not run when no file or setting it
    /// would read names `vaultSession` (`GitConfigSources`): then no host is linked.
    static func lookup(url: String, environment: [String: String], workingDirectory: String? = currentDirectory()) throws(HelperFailure) -> GitSessionLink? {
        guard let git = locateGit(path: environment["PATH"]) else { return nil }
        guard GitConfigSources(environment: environment, git: git, workingDirectory: workingDirectory).mayHold("vaultsession") else { return nil }
        let output = try run([git, "config", "-z", "--get-urlmatch", "credential", url])
        var settings: [String: String] = [:]
        for entry in output.split(separator: 0) {
            let parts = entry.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            settings[String(decoding: parts[0], as: UTF8.self).lowercased()] = String(decoding: parts[1], as: UTF8.self)
        }
        guard let service = settings["credential.vaultsession"], !service.isEmpty else { return nil }
        let account = settings["credential.vaultsessionaccount"].flatMap { $0.isEmpty ? nil : $0 }
        return GitSessionLink(service: service, account: account)
    }

    static func currentDirectory() -> String? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    static func locateGit(path: String?) -> String? {
        (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }
            .map { ($0.hasSuffix("/") ? String($0.dropLast()) : $0) + "/git" }
            .first { access($0, X_OK) == 0 }
    }

    /// Runs `arguments` with stdin from /dev/null and stderr inherited, and returns its stdout.
    /// `git config --get-urlmatch` exits 1 when nothing matches: that is an empty answer.
    private static func run(_ arguments: [String]) throws(HelperFailure) -> [UInt8] {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw HelperFailure("cannot run git config: pipe: \(Errno.current)") }
        let reader = FileDescriptor(rawValue: pipeEnds[0])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        FileDescriptor(rawValue: pipeEnds[1]).close()
        guard spawned == 0 else {
            reader.close()
            throw HelperFailure("cannot run \(arguments[0]): \(Errno(spawned))")
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var tooLong = false
        while true {
            guard let count = try? chunk.withUnsafeMutableBytes({ try reader.read(into: $0) }), count > 0 else { break }
            if output.count + count > maxOutputBytes { tooLong = true; break }
            output.append(contentsOf: chunk[0..<count])
        }
        reader.close()  // before waiting: a git still writing gets EPIPE instead of blocking
        var status: Int32 = 0
        _ = try? retryingOnInterrupt { waitpid(pid, &status, 0) }
        let exitCode = (status >> 8) & 0xFF, signaled = (status & 0x7F) != 0
        guard !tooLong else { throw HelperFailure("git config printed over \(maxOutputBytes) bytes of credential settings") }
        guard !signaled, exitCode == 0 || exitCode == 1 else {
            throw HelperFailure("git config --get-urlmatch failed (exit \(exitCode)); check the credential.* settings it names above")
        }
        return exitCode == 0 ? output : []
    }
}
