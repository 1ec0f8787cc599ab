import CLibSecret
import VaultCore

/// A secret as libsecret holds it (SecretValue*). Owns one reference and drops it on deinit.
final class LibSecretValue {
    let pointer: OpaquePointer

    /// A copy of `secret` with the content type "text/plain" when it is UTF-8, and
    /// "application/octet-stream" otherwise.
    init(_ secret: SecretBytes) {
        let contentType = Self.isUTF8(secret) ? "text/plain" : "application/octet-stream"
        // SecretBytes always has a valid base address, even when empty.
        pointer = secret.withUnsafeBytes { bytes in
            secret_value_new(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count, contentType)!
        }
    }

    /// Takes over a value libsecret returned with transfer full.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { secret_value_unref(UnsafeMutableRawPointer(pointer)) }

    /// The secret, copied straight into `SecretBytes` (which wipes it on release).
    var bytes: SecretBytes {
        var length = 0
        let bytes = secret_value_get(pointer, &length)
        return SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// Checks the encoding in place, without making a String copy of the secret that nothing would wipe.
    private static func isUTF8(_ secret: SecretBytes) -> Bool {
        secret.withUnsafeBytes { bytes in
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }
}
