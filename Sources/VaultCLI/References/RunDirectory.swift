#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// The private directory of one `vaultctl run --on-refresh SIGNAL`, for its VAR_FILE files: made
/// by mkdtemp (mode 0700) in $XDG_RUNTIME_DIR (else /tmp), checked as `PrivateDirectory` checks,
/// each file written 0600 by an atomic replace, everything removed by `remove()`.
final class RunDirectory {
    let path: String

    init(environment: [String: String]) throws {
        var base = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/vaultctl-run.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw VaultError.storage(operation: "create a private directory in", path: base, errno: Errno.current)
        }
        path = String(cString: made)
        do {
            try PrivateDirectory.check(path)
        } catch {
            rmdir(path)
            throw error
        }
    }

    /// Writes `value` to the file `name` (a variable's name), replacing it atomically; its path.
    @discardableResult
    func write(_ name: String, _ value: SecretBytes) throws -> String {
        let file = path + "/" + name
        try AtomicFileWriter.write(value.unprotectedBytes, to: file, mode: 0o600)
        return file
    }

    func remove() {
        // Ours alone: the files, and any temp file a failed write left.
        for name in (try? FileSystem.contentsOfDirectory(path)) ?? [] { FileSystem.removeFileIfPresent(path + "/" + name) }
        rmdir(path)
    }
}
