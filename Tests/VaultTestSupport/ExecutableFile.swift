import Foundation
import VaultCore
import VaultSystem

/// Programs and scripts for tests to run, written through a close-on-exec descriptor.
///
/// FileManager's `copyItem` and `createFile`, `Data.write` and `FileHandle(forWritingTo:)` open
/// without `O_CLOEXEC`; tests run side by side in one process, and a process another test spawns
/// while a file is being written inherits that descriptor and keeps it for as long as it runs.
/// Until then, executing the file fails with ETXTBSY ("Text file busy"), which made the
/// access-rule tests fail now and then. `FileDescriptor.open` is always close-on-exec, which
/// narrows that to the moment between another test's fork and its exec.
public enum ExecutableFile {
    /// `source`'s bytes, then `extra`, as a new file `destination` (replacing one there), `mode`.
    public static func copy(_ source: String, to destination: String, appending extra: [UInt8] = [], mode: mode_t = 0o700) throws {
        try write([UInt8](Data(contentsOf: URL(fileURLWithPath: source))) + extra, to: destination, mode: mode)
    }

    /// `bytes` as a new file `destination` (replacing one there), `mode` (0700 unless another uid runs it).
    public static func write(_ bytes: [UInt8], to destination: String, mode: mode_t = 0o700) throws {
        FileSystem.removeFileIfPresent(destination)
        let fd = try FileDescriptor.open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode)
        // The umask may have taken bits `mode` asks for.
        try fd.closeAfter {
            try fd.writeAll(bytes)
            _ = fchmod(fd.rawValue, mode)
        }
    }
}
