#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// A helper's standard input, read whole before anything is parsed: at most `limit` bytes (more
/// is refused, not truncated), straight into one buffer that is wiped after the copy into
/// `SecretBytes`, so no stray copy of a password stays behind in freed memory.
enum HelperInput {
    static func read(limit: Int, from fd: FileDescriptor = FileDescriptor(rawValue: 0)) throws(HelperFailure) -> SecretBytes {
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        defer { buffer.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        var filled = 0
        while filled <= limit {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            } catch {
                throw HelperFailure("cannot read standard input: \(error)")
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= limit else {
            throw HelperFailure("the input is over \(limit) bytes; nothing was read or changed")
        }
        return buffer.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<filled])) }
    }
}
