import VaultCore
import Synchronization
import VaultSystem

/// Replaces secrets in a stream of bytes with `replacement`, for `vaultctl run`'s output when it
/// is not a terminal. Longest secrets first, so a secret that contains another is replaced whole;
/// a secret split across two reads is still found, because a tail that could be the start of one
/// is held back until the next read (or the end) decides. Only such a tail is ever held, so output
/// that holds no secret flows through at once. Secrets may be added while it runs (a refreshed
/// token); empty ones are ignored.
final class SecretMasker: Sendable {
    static let replacement = Array("<concealed by vault>".utf8)

    private let secrets: AdaptiveLock<[[UInt8]]>

    init(_ secrets: [[UInt8]]) {
        self.secrets = AdaptiveLock(Self.ordered(secrets))
    }

    func add(_ secret: [UInt8]) {
        secrets.withLock { $0 = Self.ordered($0 + [secret]) }
    }

    private static func ordered(_ secrets: [[UInt8]]) -> [[UInt8]] {
        Array(Set(secrets.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
    }

    /// One stream's state: the bytes held back from the last read.
    struct Stream {
        var held: [UInt8] = []
    }

    /// What may be written after `input` arrived (`atEnd`: the stream is over, nothing is held).
    func mask(_ input: [UInt8], _ stream: inout Stream, atEnd: Bool = false) -> [UInt8] {
        let secrets = self.secrets.withLock { $0 }
        let bytes = stream.held + input
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        scan: while index < bytes.count {
            for secret in secrets where secret[0] == bytes[index] {
                let available = bytes.count - index
                if available >= secret.count {
                    if bytes[index..<index + secret.count].elementsEqual(secret) {
                        output += Self.replacement
                        index += secret.count
                        continue scan
                    }
                } else if !atEnd, bytes[index...].elementsEqual(secret[..<available]) {
                    // Could still become this secret (longer ones first): wait for more.
                    stream.held = Array(bytes[index...])
                    return output
                }
            }
            output.append(bytes[index])
            index += 1
        }
        stream.held = []
        return output
    }
}
