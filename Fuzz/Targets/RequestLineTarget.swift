import VaultCore
import VaultProtocol

/// A request line as vaultd reads it: the `get` fast path reads exactly what the general decoder
/// reads, and whatever decodes encodes to a line that decodes and encodes to itself again.
enum RequestLineTarget: FuzzTarget {
    static let name = "request-line"
    static let maxLength = 4096

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        var copy = input
        let general = try? MessageCodec.decodeGenerally(RequestLine.self, from: &copy)
        if let fast = GetRequestDecoder.decode(input) {
            guard let general else { throw FuzzFinding("the get fast path read a line the general decoder refuses") }
            try FuzzFinding.check(MessageCodec.requestLine(fast) == MessageCodec.requestLine(general), "the get fast path and the general decoder read different requests")
        }
        guard let general else { return }
        guard let line = MessageCodec.requestLine(general) else { throw FuzzFinding("a decoded request cannot be encoded") }
        try FuzzFinding.check(line.last == UInt8(ascii: "\n") && !line.dropLast().contains(UInt8(ascii: "\n")), "an encoded request is not one line")
        guard let again = try? MessageCodec.decode(RequestLine.self, from: Array(line.dropLast())) else {
            throw FuzzFinding("an encoded request does not decode")
        }
        try FuzzFinding.check(MessageCodec.requestLine(again) == line, "decode(encode(request)) encodes differently")
    }
}
