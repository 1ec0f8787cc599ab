#if canImport(Glibc)
import Glibc
#endif
import VaultSystem

extension SecretBytes {
    /// Reads bytes up to a newline (not included) into wiped-on-release memory.
    /// Returns nil when the input ends before any byte or newline.
    public static func readLine(from fd: FileDescriptor, maxBytes: Int) throws -> SecretBytes? {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: maxBytes + 1, alignment: 1)
        defer {
            SecretBytes.wipe(scratch)
            scratch.deallocate()
        }
        var count = 0
        var byte: UInt8 = 0
        while true {
            let got = try withUnsafeMutableBytes(of: &byte) { try fd.read(into: $0) }
            if got == 0 { if count == 0 { return nil }; break }
            if byte == UInt8(ascii: "\n") { break }
            if count == maxBytes { throw Errno(E2BIG) }
            scratch[count] = byte
            count += 1
        }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
    }
}
