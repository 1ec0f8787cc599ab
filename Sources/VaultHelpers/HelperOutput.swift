import VaultCore
import VaultSystem

/// Writes a helper's answer. The buffer may hold a secret, so it is wiped after the write; a
/// reader that went away (EPIPE: SIGPIPE is ignored) is not an error worth reporting.
enum HelperOutput {
    static func write(_ bytes: inout [UInt8], to fd: Int32 = 1) {
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        try? FileDescriptor(rawValue: fd).writeAll(bytes)
    }

    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        write(&bytes, to: fd)
    }
}
