#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// Reading secrets and passphrases: a no-echo prompt on a terminal, stdin otherwise. Never argv.
enum SecretInput {
    static var stdinIsTerminal: Bool { Terminal.isTerminal(0) }

    /// The whole of stdin, at most `limit` bytes, with one trailing newline removed unless `raw`.
    static func readStandardInput(limit: Int, raw: Bool) throws -> SecretBytes {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: limit + 2, alignment: 1)
        defer {
            SecretBytes.wipe(scratch)
            scratch.deallocate()
        }
        let input = FileDescriptor(rawValue: 0)
        var count = 0
        while count <= limit + 1 {
            let got = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[count...]))
            if got == 0 { break }
            count += got
        }
        if !raw && count > 0 && scratch[count - 1] == UInt8(ascii: "\n") {
            count -= 1
            if count > 0 && scratch[count - 1] == UInt8(ascii: "\r") { count -= 1 }
        }
        if count > limit {
            throw VaultError.tooLarge("the secret on stdin is over \(limit / 1024) KiB, the limit")
        }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
    }

    /// One line of stdin (for passphrases piped in), without its newline.
    static func readLine() throws -> SecretBytes? {
        try SecretBytes.readLine(from: FileDescriptor(rawValue: 0), maxBytes: 4096)
    }

    /// Prompts on the terminal; `confirm` asks twice and insists they match.
    static func prompt(_ text: String, confirm: Bool = false) throws -> SecretBytes {
        guard let first = try Terminal.readSecret(prompt: text) else {
            throw VaultError.invalidInput("nothing was entered")
        }
        if confirm {
            guard let second = try Terminal.readSecret(prompt: "Repeat to confirm: "), second == first else {
                throw VaultError.invalidInput("the two entries do not match; nothing was changed")
            }
        }
        return first
    }
}
