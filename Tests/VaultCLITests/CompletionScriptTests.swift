import Foundation
import Testing
import VaultCLI

/// The repository's root, from this file's place in it.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct CompletionScriptTests {
    let table = CommandTable.vaultctl

    @Test(arguments: CompletionScript.Shell.allCases)
    func theCommittedScriptIsWhatTheTableGenerates(shell: CompletionScript.Shell) throws {
        let script = CompletionScript(shell)
        let committed = try Data(contentsOf: repositoryRoot.appendingPathComponent("completions").appendingPathComponent(script.fileName))
        #expect(committed == Data(script.text.utf8), "completions/\(script.fileName) differs from the table: run scripts/generate-completions")
    }

    @Test func fileNamesAreTheOnesInstalled() {
        #expect(CompletionScript.Shell.allCases.map { CompletionScript($0).fileName } == ["vaultctl.bash", "_vaultctl", "vaultctl.fish"])
    }

    @Test func bashDeclaresEveryCommandsOptions() {
        let script = CompletionScript(.bash).text
        for spec in table.allSpecs where !spec.options.isEmpty {
            let pattern = spec.path.count > 1 ? "\"\(spec.displayName)\"" : spec.name
            let arm = Self.arm(naming: pattern, in: script)
            let declared = arm?.action.split(separator: "\"").drop { !$0.hasSuffix("options=") }.dropFirst().first
            #expect(declared.map { Set($0.split(separator: " ").map(String.init)) }
                    == Set(spec.options.map { $0.spelling + ($0.takesValue ? "=" : "") }), "\(spec.displayName)")
        }
        for option in table.globalOptions { #expect(script.contains(" \(option.spelling)= ")) }
        for word in table.commands.flatMap({ [$0.name] + $0.aliases }) { #expect(script.contains(" \(word)")) }
    }

    @Test func zshDeclaresEveryCommandsOptions() {
        let script = CompletionScript(.zsh).text
        for spec in table.allSpecs where !spec.isGroup {
            // A subcommand's arm is looked for in its group's function: its name alone may be a
            // top-level command's too (remote add, add).
            var scope = Substring(script)
            if spec.path.count > 1, let group = script.range(of: "\n_vaultctl_\(spec.path[0])() {\n") {
                scope = script[group.upperBound...].prefix { $0 != "}" }
            }
            let function = Self.arm(naming: spec.name, in: String(scope))?.action.split(separator: " ").first.map(String.init)
            guard let function, let start = script.range(of: "\n\(function)() {\n") else {
                Issue.record("no function for \(spec.displayName)")
                continue
            }
            let body = script[start.upperBound...].prefix { $0 != "}" }
            for option in spec.options + table.globalOptions {
                #expect(body.contains("'\(option.spelling)\(option.takesValue ? "=" : "")["), "\(spec.displayName) \(option.spelling)")
            }
        }
        for spec in table.commands { #expect(script.contains("'\(spec.name):")) }
    }

    @Test func fishDeclaresEveryCommandsOptions() {
        let lines = CompletionScript(.fish).text.split(separator: "\n")
        for spec in table.allSpecs where !spec.isGroup {
            let conditioned = lines.filter { $0.contains("-n \"__vaultctl_using ") && $0.contains(" '\(spec.displayName)'") }
            for option in spec.options {
                #expect(conditioned.contains { $0.contains("\" -l \(option.name) ") }, "\(spec.displayName) \(option.spelling)")
            }
        }
        for option in table.globalOptions { #expect(lines.contains("complete -c vaultctl -l \(option.name) -r -F -d \(fishQuoted(option.help))")) }
        for spec in table.commands { #expect(lines.contains { $0.contains("__vaultctl_using ''\" -a \(spec.name) ") }) }
    }

    /// The `case` arm (`set|add) options=... ;;`) with `pattern` among its patterns.
    static func arm(naming pattern: String, in script: String) -> (patterns: [String], action: String)? {
        for line in script.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard let close = trimmed.firstIndex(of: ")"), trimmed.hasSuffix(" ;;") else { continue }
            let patterns = trimmed[..<close].split(separator: "|").map(String.init)
            if patterns.contains(pattern) {
                return (patterns, String(trimmed[trimmed.index(after: close)...].dropFirst().dropLast(3)))
            }
        }
        return nil
    }

    @Test func choicesAndServicesInEveryShell() {
        for shell in CompletionScript.Shell.allCases {
            let script = CompletionScript(shell).text
            #expect(script.contains("raw json env header exec-credential"), "\(shell)")
            #expect(script.contains("file secret-service"), "\(shell)")
            #expect(script.contains("oauth2 supabase firebase"), "\(shell)")
            #expect(script.contains("VAULT_NO_AUTOSTART=1 vaultctl list 2>/dev/null | cut -f1 | sort -u"), "\(shell)")
        }
    }

    private func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
