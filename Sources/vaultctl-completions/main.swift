// vaultctl-completions bash|zsh|fish: prints that shell's completion script for vaultctl,
// generated from the command table. scripts/generate-completions writes all three to completions/.
#if canImport(Glibc)
import Glibc
#endif
import VaultCLI

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1, let shell = CompletionScript.Shell(rawValue: arguments[0]) else {
    let shells = CompletionScript.Shell.allCases.map(\.rawValue).joined(separator: "|")
    let usage = Array("usage: vaultctl-completions \(shells)\n".utf8)
    _ = usage.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}
print(CompletionScript(shell).text, terminator: "")
