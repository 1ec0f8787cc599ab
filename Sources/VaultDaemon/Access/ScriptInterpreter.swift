import VaultCore
import VaultSystem

/// The interpreter a rule for a script pins with it: a script is only as trustworthy as the
/// program that runs it, and a program named `bash` in a directory of the user's is any program.
enum ScriptInterpreter {
    /// nil for a compiled program (an ELF file); for a script, the resolved path of its
    /// interpreter: `named` (absolute) when given, else the program its `#!` line names.
    static func of(_ path: String, named: String?) throws -> String? {
        var interpreter = named
        switch ProgramFile.of(path) {
        case .compiled:
            guard named == nil else { throw VaultError.invalidInput("\(path) is a compiled program: an interpreter is named only for a script") }
            return nil
        case .script(let words) where named == nil:
            guard let first = words.first else {
                throw VaultError.invalidInput("\(path)'s #! line names no interpreter: name it with --interpreter")
            }
            guard FileSystem.lastComponent(of: first) != "env" else {
                throw VaultError.invalidInput("\(path)'s #! line finds its interpreter with env, in the caller's PATH: name it with 'interpreter' (vaultctl allow looks it up in yours)")
            }
            interpreter = first
        case .script, .other:
            break
        }
        guard let interpreter else {
            throw VaultError.invalidInput("\(path) is neither a compiled program nor a script with a #! line: name the program that runs it with --interpreter (python3 tool.py: --interpreter /usr/bin/python3)")
        }
        guard interpreter.hasPrefix("/"), let resolved = PeerProcess.realPath(interpreter) else {
            throw VaultError.invalidInput("the interpreter \(interpreter.replacingControlCharacters()) does not exist: name it by its absolute path")
        }
        guard InterpreterArguments.family(ofExecutable: FileSystem.lastComponent(of: resolved)) != nil else {
            throw VaultError.invalidInput("\(resolved) is not an interpreter vault tells scripts apart for (python, sh, bash, dash, perl, ruby, node, php, lua, ...)")
        }
        if case .script = ProgramFile.of(resolved) {
            throw VaultError.invalidInput("\(resolved) is itself a script (a wrapper, such as pyenv's shims): name the interpreter it runs with --interpreter (pyenv: 'pyenv which python3')")
        }
        return resolved
    }
}
