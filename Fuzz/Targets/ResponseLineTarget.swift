import VaultCore
import VaultProtocol

/// A response line as a client reads it (vaultctl, the helpers, VaultClient): the item fast path
/// reads exactly what the general decoder reads, and a decoded response round-trips.
enum ResponseLineTarget: FuzzTarget {
    static let name = "response-line"
    static let maxLength = 8192

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        var copy = input
        let general = try? MessageCodec.decodeGenerally(ResponseLine.self, from: &copy)
        if let fast = ItemResponseDecoder.decode(input) {
            guard let general else { throw FuzzFinding("the item fast path read a line the general decoder refuses") }
            try FuzzFinding.check(MessageCodec.encode(fast) == MessageCodec.encode(general), "the item fast path and the general decoder read different responses")
        }
        guard let general else { return }
        let line = MessageCodec.encode(general)
        if let fast = ItemResponseEncoder.encode(general) {
            try FuzzFinding.check(fast == MessageCodec.encodedLine(general), "the item fast encoder and the general encoder write different lines")
        }
        guard let again = try? MessageCodec.decode(ResponseLine.self, from: Array(line.dropLast())) else {
            throw FuzzFinding("an encoded response does not decode")
        }
        try FuzzFinding.check(MessageCodec.encode(again) == line, "decode(encode(response)) encodes differently")
    }
}
