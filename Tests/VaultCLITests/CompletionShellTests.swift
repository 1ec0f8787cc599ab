import Foundation
import Testing
import VaultCLI

/// Runs the generated scripts in the real shells: syntax, then completions for typed lines, with
/// a `vaultctl` stub that lists two services. Each shell's tests are skipped when it is missing
/// (scripts/install-deps does not install them; `apt-get install bash-completion zsh fish`).
@Suite struct CompletionShellTests {
    /// Typed lines and what every shell offers for them, sorted.
    static let cases: [(line: String, offers: String)] = [
        ("vaultctl ", "add allow approve audit aws delete disallow doctor get help history inject kubeconfig list lock login logout ls migrate passwd read remote reset-password rm rules run session set signup space status token unlock version write"),
        ("vaultctl g", "get"),
        ("vaultctl -", "--help --socket --version -h"),
        ("vaultctl get ", "example github.com"),
        ("vaultctl get github.com ", ""),
        ("vaultctl rm ", "example github.com"),
        ("vaultctl ls --json ", "example github.com"),
        ("vaultctl get -- ", "example github.com"),
        ("vaultctl set --label x ", "example github.com"),
        ("vaultctl --socket /tmp/s token ", "example github.com"),
        ("vaultctl token s --socket /tmp/s ", ""),
        ("vaultctl token --format ", "env exec-credential header json raw"),
        ("vaultctl token --", "--env-name --format --help --min-ttl --socket"),
        ("vaultctl login ", "firebase oauth2 supabase"),
        ("vaultctl signup ", "firebase supabase"),
        ("vaultctl login oauth2 --dev", "--device --device-endpoint"),
        ("vaultctl migrate --to ", "file secret-service"),
        ("vaultctl session ", "import"),
        ("vaultctl session import ", "example github.com"),
        ("vaultctl session import --provider ", "firebase oauth2 supabase"),
        ("vaultctl session import s a --", "--anon-key --api-key --client-id --help --provider --socket --token-endpoint --url"),
    ]

    static let stub = #"vaultctl() { [ "$1" = list ] && [ "$VAULT_NO_AUTOSTART" = 1 ] && printf 'github.com\toctocat\nexample\tx\ngithub.com\tother\n'; }"#

    /// Sources bash-completion and the script, then for each line sets COMP_WORDS as readline
    /// would (split at spaces and around '=') and calls the completion function.
    static let bashDriver = """
        source /usr/share/bash-completion/bash_completion
        source "$1"; shift
        \(stub)
        for line in "$@"; do
            read -ra COMP_WORDS <<< "${line//=/ = }"
            [[ $line == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$line COMP_POINT=${#line}
            COMPREPLY=()
            _vaultctl vaultctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}" | sort | paste -sd ' '
        done
        """

    static let fishDriver = """
        source $argv[1]
        function vaultctl
            test "$argv[1]" = list; and test "$VAULT_NO_AUTOSTART" = 1; and printf 'github.com\\toctocat\\nexample\\tx\\ngithub.com\\tother\\n'
        end
        for line in $argv[2..-1]
            complete -C"$line" | cut -f1 | sort | paste -sd ' '
        end
        """

    /// Types each line and a tab into an interactive zsh on a pseudo-terminal (zpty), with
    /// compadd wrapped to print what it is given, and prints the matches.
    static let zshDriver = #"""
        zmodload zsh/zpty
        local directory=$1 line out
        shift
        for line in "$@"; do
            zpty z zsh -f -i
            zpty -w z "PROMPT='' RPROMPT=''"
            zpty -w z "fpath=($directory \$fpath); autoload -U compinit; compinit -u -D"
            zpty -w z 'vaultctl() { [[ $1 == list && $VAULT_NO_AUTOSTART == 1 ]] && print -l "github.com\toctocat" "example\tx" "github.com\tother" }'
            zpty -w z "bindkey '^I' complete-word"
            zpty -w z '__done() { echo "@@EN""D@@"; exit }; comppostfuncs=( __done )'
            zpty -w z 'compadd () {
                if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
                typeset -a hits
                builtin compadd -A hits "$@"
                local hit; echo; for hit in $hits; do echo -E - "HI""T:$IPREFIX$hit"; done
            }'
            zpty -n -w z "$line"$'\t'
            zpty -r z out '*@@END@@*'
            zpty -d z
            print -r -- ${(j: :)${(o)${${(M)${(f)out//$'\r'/}:#HIT:*}#HIT:}}}
        done
        """#

    @Test(.enabled(if: shell("bash") != nil && FileManager.default.fileExists(atPath: "/usr/share/bash-completion/bash_completion")))
    func bash() throws {
        let script = try write(CompletionScript(.bash).text, "vaultctl.bash")
        #expect(try run([shell("bash")!, "-n", script]).status == 0)
        let driver = try write(Self.bashDriver, "driver.bash")
        try check(try run([shell("bash")!, driver, script] + Self.cases.map(\.line) + ["vaultctl token --format=j"]),
                  Self.cases.map(\.offers) + ["json"])
    }

    @Test(.enabled(if: shell("zsh") != nil))
    func zsh() throws {
        let script = try write(CompletionScript(.zsh).text, "_vaultctl")
        #expect(try run([shell("zsh")!, "-n", script]).status == 0)
        let driver = try write(Self.zshDriver, "driver.zsh")
        let directory = (script as NSString).deletingLastPathComponent
        try check(try run([shell("zsh")!, "-f", driver, directory] + Self.cases.map(\.line) + ["vaultctl token --format=j"]),
                  Self.cases.map(\.offers) + ["--format=json"])
    }

    @Test(.enabled(if: shell("fish") != nil))
    func fish() throws {
        let script = try write(CompletionScript(.fish).text, "vaultctl.fish")
        #expect(try run([shell("fish")!, "--no-config", "-n", script]).status == 0)
        let driver = try write(Self.fishDriver, "driver.fish")
        try check(try run([shell("fish")!, "--no-config", driver, script] + Self.cases.map(\.line) + ["vaultctl token --format=j"]),
                  Self.cases.map(\.offers) + ["--format=json"])
    }

    /// Paths complete for --socket and --client-secret-file.
    @Test(.enabled(if: shell("bash") != nil && FileManager.default.fileExists(atPath: "/usr/share/bash-completion/bash_completion")))
    func bashCompletesPaths() throws {
        let script = try write(CompletionScript(.bash).text, "vaultctl.bash")
        let directory = (script as NSString).deletingLastPathComponent
        let driver = try write(Self.bashDriver, "driver.bash")
        try check(try run([shell("bash")!, driver, script, "vaultctl --socket \(directory)/vaultctl.b",
                           "vaultctl login oauth2 --client-secret-file \(directory)/vaultctl.b", "vaultctl get --socket=\(directory)/vaultctl.b"]),
                  ["\(directory)/vaultctl.bash", "\(directory)/vaultctl.bash", "\(directory)/vaultctl.bash"])
    }

    private func check(_ result: ProcessResult, _ expected: [String]) throws {
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        try #require(lines.count == expected.count, "\(result.stdout)\n\(result.stderr)")
        for (index, line) in lines.enumerated() {
            let typed = index < Self.cases.count ? Self.cases[index].line : "extra case \(index)"
            #expect(line == expected[index], "completing '\(typed)'")
        }
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = Self.directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// One directory per test process for the scripts and drivers.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vaultctl-completions-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
}

/// The shell's path on PATH, or nil.
func shell(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a command to completion (at most a minute) with no input.
func run(_ arguments: [String]) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    process.arguments = ["60"] + arguments
    let stdout = Pipe(), stderr = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}
