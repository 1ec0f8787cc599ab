import Foundation

/// Copies of programs for tests to run, written through a close-on-exec descriptor.
///
/// FileManager's `copyItem` and `FileHandle(forWritingTo:)` open without `O_CLOEXEC`; tests run
/// side by side in one process, and a process another test spawns while a copy is being written
/// inherits that descriptor and keeps it for as long as it runs. Until then, executing the copy
/// fails with ETXTBSY ("Text file busy"), which made the access-rule tests fail now and then.
/// Close-on-exec narrows that to the moment between another test's fork and its exec.
public enum ExecutableCopy {
    /// Writes `source`'s bytes, then `appending`, to a new file `destination` (replacing one
    /// there), mode 0700.
    public static func make(of source: String, at destination: String, appending extra: [UInt8] = []) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source))) + extra
        _ = unlink(destination)
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o700)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            offset += written
        }
    }
}
