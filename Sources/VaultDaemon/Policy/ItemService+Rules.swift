import VaultCore
import VaultProtocol

/// Access rules: which programs may read an item (`AccessRules`), changed by `allow` and
/// `disallow`, both audited.
extension ItemService {
    /// Allows the program at `path` (absolute; resolved to the file a caller's /proc/PID/exe
    /// shows, and pinned by the SHA-256 of its content now) to read `key`; for a script, only as
    /// run by its interpreter (`ScriptInterpreter`: `interpreter`, or its `#!` line's), pinned
    /// the same way. Loosening the rules of an item that needs confirmation needs the approver
    /// too, or any program could allow itself.
    /// A program that serves whoever runs it (`OpenDoors`) is refused unless `anyCaller`.
    func allow(_ key: ItemKey, program path: String, interpreter: String? = nil, anyCaller: Bool = false, by request: ItemRequest) throws -> AccessRules.Entry? {
        try audited(.allow, key, by: request) { facts in
            let program = try Self.pinned(try Self.programPath(path))
            let pinned = try ScriptInterpreter.of(program.path, named: interpreter).map { try Self.pinned($0) }
            if !anyCaller, let why = OpenDoors.reason(CallerIdentity.Program(path: program.path, hash: program.hash, interpreter: pinned)) {
                throw VaultError.invalidInput("\(why), so every program that can run it would read \(key). If that is meant, add --any-caller; else mark the item --confirm and approve each use (the approver sees who ran it)")
            }
            if try access.confirmAll || access.rules(of: key)?.confirm == true {
                facts.grant = try access.askApprover(op: .allow, item: key, caller: request.caller, reads: request.reads)
            }
            return try access.allow(key, program: CallerIdentity.Program(path: program.path, hash: program.hash, interpreter: pinned))
        }
    }

    /// The file at `path` with the SHA-256 of its content now.
    private static func pinned(_ path: String) throws -> CallerIdentity.Program {
        guard let hash = ExecutableHashes.shared.hash(ofFile: path) else {
            throw VaultError.invalidInput("\(path) is not a regular file vaultd can read, so it cannot be pinned: name the program's file")
        }
        return CallerIdentity.Program(path: path, hash: hash)
    }

    /// Removes the rule allowing the program at `path` (as given, or as it resolves now: the file
    /// may be gone) to read `key`; an error when no rule names it.
    func disallow(_ key: ItemKey, program path: String?, by request: ItemRequest) throws -> AccessRules.Entry? {
        try audited(.disallow, key, by: request) { _ in
            guard let given = path, given.hasPrefix("/") else { throw VaultError.invalidInput("disallow takes the program's absolute path") }
            let paths = Set([given, PeerProcess.realPath(given)].compactMap { $0 })
            var removed = false
            let entry = try access.updateRules(key) { entry in
                let before = entry.allow.count
                entry.allow.removeAll { paths.contains($0.path) }
                removed = entry.allow.count < before
            }
            guard removed else {
                throw VaultError.invalidInput("no rule allows \(given.replacingControlCharacters()) to read \(key); vaultctl rules \(key.service.shellQuoted) \(key.account.shellQuoted) lists them")
            }
            return entry
        }
    }

    /// The rules of `key` (nil: it has none).
    func rules(of key: ItemKey) throws -> AccessRules.Entry? {
        try access.rules(of: key)
    }

    /// An absolute path, resolved (symbolic links, `..`) to the file a caller's /proc/PID/exe shows.
    static func programPath(_ given: String?) throws -> String {
        guard let given, given.hasPrefix("/") else { throw VaultError.invalidInput("name the program by its absolute path") }
        guard let resolved = PeerProcess.realPath(given) else {
            throw VaultError.invalidInput("\(given.replacingControlCharacters()) does not exist: name the program's file")
        }
        return resolved
    }
}
