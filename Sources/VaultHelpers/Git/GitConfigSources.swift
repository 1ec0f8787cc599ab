#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// Where git looks for its configuration when the helper runs `git config` (git-config(1),
/// "FILES" and "ENVIRONMENT"), taken wide: the settings git passes down in the environment
/// (`git -c`, `GIT_CONFIG_COUNT`), `GIT_CONFIG`, the system file (`GIT_CONFIG_SYSTEM`,
/// /etc/gitconfig, and `etc/gitconfig` beside the git that runs), every global file
/// (`GIT_CONFIG_GLOBAL`, `$XDG_CONFIG_HOME/git/config`, `~/.config/git/config`, `~/.gitconfig`),
/// and the repository's (`GIT_DIR`, `GIT_COMMON_DIR`, and every `.git`, gitfile and bare
/// repository from the working directory up to /, with `commondir` and `config.worktree`),
/// whether or not git would read each (`GIT_CONFIG_NOSYSTEM`, ceilings, ownership), and the
/// files their includes name, whatever their condition.
struct GitConfigSources {
    var settings: [String]
    var files: [String]
    /// What `~/` in an include names.
    var home: String?
    /// False when the repository's files could not be found this way (an unreadable gitfile,
    /// no working directory).
    var complete: Bool

    /// The most of one file read; a larger file is not looked into.
    static let maxFileBytes = 1 << 20
    /// How deep includes are followed (git's own limit).
    static let maxIncludeDepth = 10

    init(environment: [String: String], git: String?, workingDirectory: String?) {
        settings = environment.filter { $0.key == "GIT_CONFIG_PARAMETERS" || $0.key.hasPrefix("GIT_CONFIG_KEY_") || $0.key.hasPrefix("GIT_CONFIG_VALUE_") }
            .map(\.value)
        var files = ["GIT_CONFIG", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL"].compactMap { environment[$0] }.filter { !$0.isEmpty }
        files.append("/etc/gitconfig")
        if let git {
            for program in Set([git, Self.realPath(git) ?? git]) {
                let directory = FileSystem.parentDirectory(of: program)
                files += [directory + "/../etc/gitconfig", FileSystem.parentDirectory(of: directory) + "/../etc/gitconfig"]
            }
        }
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { files.append(xdg + "/git/config") }
        home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if let home { files += [home + "/.config/git/config", home + "/.gitconfig"] }
        complete = true
        for directory in ["GIT_DIR", "GIT_COMMON_DIR"].compactMap({ environment[$0] }).filter({ !$0.isEmpty }) {
            guard let absolute = Self.absolute(directory, in: workingDirectory) else { complete = false; continue }
            files += Self.repositoryFiles(gitDirectory: absolute, complete: &complete)
        }
        if let workingDirectory, workingDirectory.hasPrefix("/") {
            files += Self.repositoryFiles(above: workingDirectory, complete: &complete)
        } else {
            complete = false
        }
        self.files = files
    }

    /// Whether git's configuration may set `variable` (a lowercase name, `vaultsession`): false
    /// only when nothing above names it, in any case, and every file was read and every include
    /// followed. A file that does not exist names nothing; one that cannot be read, is not a
    /// regular file, or is over `maxFileBytes` may name anything.
    func mayHold(_ variable: String) -> Bool {
        guard complete else { return true }
        for setting in settings {
            let text = GitConfigText(bytes: Array(setting.utf8))
            if text.mentions(variable) || text.mentions("include") { return true }
        }
        return files.contains { file in mayHold(variable, in: file, depth: 0) }
    }

    private func mayHold(_ variable: String, in path: String, depth: Int) -> Bool {
        guard depth <= Self.maxIncludeDepth else { return true }
        let text: GitConfigText
        switch Self.read(path) {
        case .missing: return false
        case .unreadable: return true
        case .text(let bytes): text = GitConfigText(bytes: bytes)
        }
        if text.mentions(variable) { return true }
        guard text.mentions("include") else { return false }
        guard let included = text.includePaths() else { return true }
        for name in included {
            guard let target = Self.includeTarget(name, from: path, home: home) else { return true }
            if mayHold(variable, in: target, depth: depth + 1) { return true }
        }
        return false
    }

    /// An include's file (git-config(1), "Includes"): `~/` is the home directory, a relative path
    /// is relative to the including file's directory. nil for a form not followed (`~user/`,
    /// `%(prefix)/`, no home).
    static func includeTarget(_ name: String, from file: String, home: String?) -> String? {
        if name.hasPrefix("/") { return name }
        if name.hasPrefix("~/") { return home.map { $0 + name.dropFirst() } }
        if name.hasPrefix("~") || name.hasPrefix("%(") { return nil }
        return FileSystem.parentDirectory(of: file) + "/" + name
    }

    // MARK: The repository's files

    /// The configuration files of the git directory `directory`, and of the common directory its
    /// `commondir` names (a worktree's).
    static func repositoryFiles(gitDirectory directory: String, complete: inout Bool) -> [String] {
        var files = [directory + "/config", directory + "/config.worktree"]
        switch read(directory + "/commondir") {
        case .missing: break
        case .unreadable: complete = false
        case .text(let bytes):
            let common = String(decoding: bytes, as: UTF8.self).trimming(String.asciiWhitespace)
            if let common = absolute(common, in: directory) { files += [common + "/config", common + "/config.worktree"] } else { complete = false }
        }
        return files
    }

    /// The configuration files of every repository git could find from `workingDirectory`: a
    /// `.git` directory or gitfile (`gitdir: PATH`) in it or any directory above, or one of those
    /// directories itself (a bare repository, or inside `.git`: it holds `HEAD`).
    static func repositoryFiles(above workingDirectory: String, complete: inout Bool) -> [String] {
        var files: [String] = []
        var directory = workingDirectory
        while true {
            let dotGit = (directory == "/" ? "" : directory) + "/.git"
            if let status = try? FileStatus.of(dotGit) {
                if status.isDirectory {
                    files += repositoryFiles(gitDirectory: dotGit, complete: &complete)
                } else if case .text(let bytes) = read(dotGit), let target = gitfileTarget(bytes, in: directory) {
                    files += repositoryFiles(gitDirectory: target, complete: &complete)
                } else {
                    complete = false
                }
            }
            if (try? FileStatus.of((directory == "/" ? "" : directory) + "/HEAD"))?.isRegularFile == true {
                files += repositoryFiles(gitDirectory: directory, complete: &complete)
            }
            if directory == "/" { return files }
            directory = FileSystem.parentDirectory(of: directory)
        }
    }

    /// The git directory a gitfile names: `gitdir: PATH`, relative to the gitfile's directory.
    static func gitfileTarget(_ bytes: [UInt8], in directory: String) -> String? {
        let text = String(decoding: bytes, as: UTF8.self).trimming(String.asciiWhitespace)
        guard text.hasPrefix("gitdir:"), !text.contains("\n") else { return nil }
        return absolute(String(text.dropFirst("gitdir:".count)).trimming([" ", "\t"]), in: directory)
    }

    static func absolute(_ path: String, in directory: String?) -> String? {
        if path.hasPrefix("/") { return path }
        guard !path.isEmpty, let directory, directory.hasPrefix("/") else { return nil }
        return (directory == "/" ? "" : directory) + "/" + path
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: Reading

    enum Contents {
        case missing
        case unreadable
        case text([UInt8])
    }

    /// A file's bytes, without blocking (a FIFO is not read): missing when it or a directory on
    /// its path does not exist.
    static func read(_ path: String) -> Contents {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
        } catch let error as Errno where error == .noSuchFile || error == Errno(ENOTDIR) {
            return .missing
        } catch {
            return .unreadable
        }
        return fd.closeAfter {
            guard let status = try? fd.status(), status.isRegularFile || status.mode & UInt32(S_IFMT) == UInt32(S_IFCHR),
                  let bytes = try? fd.readAll(limit: maxFileBytes) else { return .unreadable }
            return .text(bytes)
        }
    }
}
