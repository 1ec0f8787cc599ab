#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Programs and scripts for tests to run, written through a close-on-exec descriptor.
///
/// FileManager's `copyItem` and `createFile`, `Data.write` and `FileHandle(forWritingTo:)` open
/// without `O_CLOEXEC`; tests run side by side in one process, and a process another test spawns
/// while a file is being written inherits that descriptor and keeps it for as long as it runs.
/// Until then, executing the file fails with ETXTBSY ("Text file busy"), which made the
/// access-rule tests fail now and then. Close-on-exec narrows that to the moment between another
/// test's fork and its exec.
public enum ExecutableFile {
    /// `source`'s bytes, then `extra`, as a new file `destination` (replacing one there), mode 0700.
    public static func copy(_ source: String, to destination: String, appending extra: [UInt8] = []) throws {
        try write([UInt8](Data(contentsOf: URL(fileURLWithPath: source))) + extra, to: destination)
    }

    /// `bytes` as a new file `destination` (replacing one there), mode 0700.
    public static func write(_ bytes: [UInt8], to destination: String) throws {
        _ = unlink(destination)
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o700)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            offset += written
        }
    }
}
