#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import VaultCore

/// Secrets put into a line after `JSONEncoder` has run, so that the encoder (and its `String` and
/// `Data` intermediates, which nobody wipes) never sees them: while encoding, a secret field is
/// written as a placeholder unique to this line (a random nonce, so no other field can imitate
/// it); `splice` then writes the encoded line with each quoted placeholder replaced by the secret
/// as JSON string contents (or base64), into one buffer of exactly the right size that the
/// sender wipes after sending.
final class SecretSplice: @unchecked Sendable {
    // Used by one encoding on one thread: created, filled and spliced by `MessageCodec.encode`.

    enum Form {
        /// JSON text; bytes that are not UTF-8 become U+FFFD (passphrases and passwords are text).
        case text
        /// Standard base64 (`secret_b64`).
        case base64
    }

    static let userInfoKey = CodingUserInfoKey(rawValue: "vault.secretSplice")!

    private let nonce: String
    private var pieces: [(placeholder: [UInt8], secret: SecretBytes, form: Form)] = []

    /// Random once per process: a placeholder never leaves the process (each is replaced before
    /// the line is written), so nobody outside can learn it and plant it in a label or a comment.
    /// Drawing it per encoding cost four getrandom(2) calls on every answer.
    private static let processNonce: String = {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt32, radix: 16) }.joined(separator: "-")
    }()

    init() {
        nonce = Self.processNonce
    }

    var isEmpty: Bool { pieces.isEmpty }

    /// The placeholder to encode in place of `secret`.
    func placeholder(for secret: SecretBytes, form: Form) -> String {
        let text = "vault-secret-\(nonce)-\(pieces.count)"
        pieces.append((Array("\"\(text)\"".utf8), secret, form))
        return text
    }

    /// `encoded` and a newline, each quoted placeholder replaced by its secret in quotes; nil if
    /// a placeholder is missing (a programming error).
    func splice(_ encoded: [UInt8]) -> [UInt8]? {
        var located: [(range: Range<Int>, secret: SecretBytes, form: Form)] = []
        for piece in pieces {
            guard let range = Self.firstRange(of: piece.placeholder, in: encoded) else { return nil }
            located.append((range, piece.secret, piece.form))
        }
        located.sort { $0.range.lowerBound < $1.range.lowerBound }
        return ExactBuffer.written(Spliced(encoded: encoded, located: located))
    }

    /// `encoded` with each located placeholder replaced by its secret in quotes, and a newline.
    private struct Spliced: ExactlyWritten {
        let encoded: [UInt8]
        let located: [(range: Range<Int>, secret: SecretBytes, form: Form)]

        func write<Sink: ByteSink>(to sink: inout Sink) {
            encoded.withUnsafeBytes { encoded in
                var copied = 0
                for piece in located {
                    sink.put(UnsafeRawBufferPointer(rebasing: encoded[copied..<piece.range.lowerBound]))
                    sink.put(UInt8(ascii: "\""))
                    SecretSplice.write(piece.secret, piece.form, to: &sink)
                    sink.put(UInt8(ascii: "\""))
                    copied = piece.range.upperBound
                }
                sink.put(UnsafeRawBufferPointer(rebasing: encoded[copied...]))
            }
            sink.put(UInt8(ascii: "\n"))
        }
    }

    /// Where `needle` first occurs in `haystack`: memchr(3) for its first byte, memcmp(3) for the
    /// rest, since the generic `firstRange(of:)` compared element by element through
    /// `DataProtocol` and took half of a cached `get`'s instructions in vaultd (docs/performance.md).
    static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        haystack.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle -> Range<Int>? in
                guard let base = haystack.baseAddress, let pattern = needle.baseAddress, needle.count > 0 else { return nil }
                var start = 0
                while haystack.count - start >= needle.count {
                    guard let found = memchr(base + start, Int32(needle[0]), haystack.count - start - needle.count + 1) else { return nil }
                    start = base.distance(to: UnsafeRawPointer(found))
                    if memcmp(base + start, pattern, needle.count) == 0 { return start..<start + needle.count }
                    start += 1
                }
                return nil
            }
        }
    }

    fileprivate static func write<Sink: ByteSink>(_ secret: SecretBytes, _ form: Form, to sink: inout Sink) {
        secret.withUnsafeBytes { bytes in
            switch form {
            case .text: JSONString.escape(bytes, into: &sink)
            case .base64: Base64Bytes.encode(bytes, into: &sink)
            }
        }
    }
}

extension KeyedEncodingContainer {
    /// Encodes `secret` under `key` through the encoder's `SecretSplice` (`MessageCodec.encode`
    /// sets one up); any other encoder is refused rather than handed a copy of the secret.
    mutating func encodeSecret(_ secret: SecretBytes, as form: SecretSplice.Form, forKey key: Key, in encoder: Encoder) throws {
        guard let splice = encoder.userInfo[SecretSplice.userInfoKey] as? SecretSplice else {
            throw EncodingError.invalidValue(key.stringValue, EncodingError.Context(
                codingPath: codingPath + [key], debugDescription: "secrets are encoded only through MessageCodec.encode"))
        }
        try encode(splice.placeholder(for: secret, form: form), forKey: key)
    }
}
