import Foundation
import Testing
@testable import VaultHelpers
import VaultCore
import VaultSystem
import VaultTestSupport

/// Whether a host may be linked to a session (`GitConfigSources`, `GitConfigText`) is decided
/// without running git when no configuration git reads names `vaultSession`; when one may, git
/// is asked (`GitSessionLink.lookup`), here a script standing in for it.
@Suite struct GitSessionLinkTests {
    let directory = TemporaryDirectory(prefix: "vault-git-config")

    /// An environment with a home and no other configuration.
    var environment: [String: String] { ["HOME": directory.file("home"), "PATH": directory.file("bin")] }

    init() throws {
        for name in ["home", "bin", "work/repo/sub"] {
            try FileManager.default.createDirectory(atPath: directory.file(name), withIntermediateDirectories: true)
        }
    }

    func write(_ text: String, to name: String) throws {
        try FileManager.default.createDirectory(atPath: FileSystem.parentDirectory(of: directory.file(name)), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file(name)))
    }

    func mayHold(_ environment: [String: String]? = nil, in workingDirectory: String = "work/repo/sub") -> Bool {
        GitConfigSources(environment: environment ?? self.environment, git: nil, workingDirectory: directory.file(workingDirectory)).mayHold("vaultsession")
    }

    @Test func withNoConfigurationNamingItNoHostIsLinked() throws {
        #expect(!mayHold())
        try write("[user]\n\tname = A\n[credential]\n\thelper = vault\n[include]\n\tpath = other.inc\n", to: "home/.gitconfig")
        try write("[core]\n\teditor = vi\n", to: "home/other.inc")
        #expect(!mayHold())
    }

    @Test func everyFileGitReadsIsLookedInWhateverTheCase() throws {
        let files = ["home/.gitconfig", "home/.config/git/config", "xdg/git/config", "global", "system", "legacy", "work/repo/.git/config", "work/repo/.git/config.worktree"]
        var environment = self.environment
        environment["XDG_CONFIG_HOME"] = directory.file("xdg")
        environment["GIT_CONFIG_GLOBAL"] = directory.file("global")
        environment["GIT_CONFIG_SYSTEM"] = directory.file("system")
        environment["GIT_CONFIG"] = directory.file("legacy")
        try FileManager.default.createDirectory(atPath: directory.file("work/repo/.git"), withIntermediateDirectories: true)
        for file in files {
            try write("[credential \"https://h.example\"]\n\tVaultSESSION = forge\n", to: file)
            #expect(mayHold(environment), "\(file)")
            try FileManager.default.removeItem(atPath: directory.file(file))
            #expect(!mayHold(environment), "\(file)")
        }
    }

    @Test func gitsEnvironmentSettingsCount() {
        for (name, value) in [("GIT_CONFIG_PARAMETERS", "'credential.https://h.example.vaultsession'='forge'"), ("GIT_CONFIG_KEY_0", "credential.vaultSession"),
                              ("GIT_CONFIG_PARAMETERS", "'include.path'='/elsewhere'")] {
            #expect(mayHold(environment.merging([name: value]) { $1 }), "\(name)=\(value)")
        }
        #expect(!mayHold(environment.merging(["GIT_CONFIG_PARAMETERS": "'credential.helper'='vault'"]) { $1 }))
    }

    @Test func includesAreFollowedWhateverTheirConditionOrElseTakenToNameIt() throws {
        try write("[includeIf \"gitdir:~/work/\"]\n\tpath = ~/linked.inc ; a comment\n", to: "home/.gitconfig")
        try write("[include]\n\tpath = deeper/more.inc\n", to: "home/linked.inc")
        try write("[credential]\n\tvaultSession = forge\n", to: "home/deeper/more.inc")
        #expect(mayHold())
        try write("[credential]\n\thelper = vault\n", to: "home/deeper/more.inc")
        #expect(!mayHold())
        // Written in a way this reading does not follow: git is asked.
        for include in ["[include]\n\tpath = \"quoted.inc\"\n", "[include] path = x.inc\n", "[include]\n\tpath\n", "[include]\n\tpath = ~alice/x\n",
                        "[include]\n\tpath = a\\\n b\n", "[include]\n\tpath = %(prefix)/x\n"] {
            try write(include, to: "home/.gitconfig")
            #expect(mayHold(), "\(include)")
        }
        // An include of itself: followed up to git's own depth, then taken to name it.
        try write("[include]\n\tpath = .gitconfig\n", to: "home/.gitconfig")
        #expect(mayHold())
    }

    @Test func theRepositoryIsFoundFromTheWorkingDirectoryUpAsGitFindsIt() throws {
        // A worktree: a gitfile names its git directory, whose commondir holds the config.
        try write("gitdir: ../main/.git/worktrees/wt\n", to: "work/repo/.git")
        try write("../..\n", to: "work/main/.git/worktrees/wt/commondir")
        try write("[credential]\n\tvaultSession = forge\n", to: "work/main/.git/config")
        #expect(mayHold())
        try write("[core]\n\tbare = false\n", to: "work/main/.git/config")
        #expect(!mayHold())
        // A bare repository as the working directory, and GIT_DIR.
        try write("ref: refs/heads/main\n", to: "work/bare.git/HEAD")
        try write("[credential]\n\tvaultsession = forge\n", to: "work/bare.git/config")
        #expect(mayHold(in: "work/bare.git"))
        #expect(mayHold(environment.merging(["GIT_DIR": "../../bare.git"]) { $1 }))
        #expect(!mayHold())
        // A gitfile this reading cannot follow, or no working directory: git is asked.
        try write("not a gitfile\n", to: "work/repo/.git")
        #expect(mayHold())
        #expect(GitConfigSources(environment: environment, git: nil, workingDirectory: nil).mayHold("vaultsession"))
    }

    @Test func aFileThatCannotBeReadIsTakenToNameIt() throws {
        try FileManager.default.createDirectory(atPath: directory.file("home/.gitconfig"), withIntermediateDirectories: true)
        #expect(mayHold())
        try FileManager.default.removeItem(atPath: directory.file("home/.gitconfig"))
        #expect(mkfifo(directory.file("home/.gitconfig"), 0o600) == 0)
        #expect(mayHold(), "a FIFO is not read (it would block), and may name anything")
        try FileManager.default.removeItem(atPath: directory.file("home/.gitconfig"))
        #expect(!mayHold(environment.merging(["GIT_CONFIG_GLOBAL": "/dev/null"]) { $1 }))
    }

    /// git runs only when the configuration may link a host; its answer is read as before.
    @Test func gitRunsOnlyWhenAHostMayBeLinked() throws {
        let ran = directory.file("git-ran")
        try ExecutableFile.write(Array("#!/bin/sh\necho \"$@\" >> '\(ran)'\nprintf 'credential.vaultsession\\nforge\\0credential.vaultsessionaccount\\nbob\\0'\n".utf8), to: directory.file("bin/git"))
        let work = directory.file("work/repo/sub")
        #expect(try GitSessionLink.lookup(url: "https://h.example", environment: environment, workingDirectory: work) == nil)
        #expect(!FileManager.default.fileExists(atPath: ran), "git ran though nothing names vaultSession")

        try write("[credential \"https://h.example\"]\n\tvaultSession = forge\n", to: "home/.gitconfig")
        #expect(try GitSessionLink.lookup(url: "https://h.example", environment: environment, workingDirectory: work) == GitSessionLink(service: "forge", account: "bob"))
        #expect(try String(contentsOfFile: ran, encoding: .utf8) == "config -z --get-urlmatch credential https://h.example\n")
    }
}
