/// A secret's path under a remote's prefix in a KV v2 mount (`team/db`): segments separated by
/// `/`, none empty, `.` or `..`, no control characters, at most `maximumLength` bytes. A path
/// that ends in `/` is a folder (`list` only). Each segment is percent-encoded on its way into a
/// URL, so no path reaches another endpoint of the engine.
public struct KVPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let text: String

    /// The longest path: what still fits an item's account with its remote's name before it.
    public static let maximumLength = ItemLimits.maxNameBytes - RemoteName.maximumLength - 8

    /// `folder`: a trailing `/` is allowed (and kept); the empty path is the remote's root.
    public init(_ text: String, folder: Bool = false) throws(VaultError) {
        if let problem = Self.problem(with: text, folder: folder) { throw VaultError.invalidInput(problem) }
        self.text = text
    }

    public static func problem(with text: String, folder: Bool = false) -> String? {
        let shown = text.count > 60 ? String(text.prefix(60)).replacingControlCharacters() + "…" : text.replacingControlCharacters()
        if text.isEmpty { return folder ? nil : "a remote secret's path must not be empty: kv://REMOTE/PATH" }
        if text.utf8.count > maximumLength { return "remote path '\(shown)' is longer than \(maximumLength) bytes" }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "remote path '\(shown)' must not contain control characters"
        }
        var segments = text.split(separator: "/", omittingEmptySubsequences: false)
        if folder, segments.count > 1, segments.last == "" { segments.removeLast() }
        for segment in segments where segment.isEmpty || segment == "." || segment == ".." {
            return "remote path '\(shown)' has an empty, '.' or '..' segment; write it as team/db"
        }
        return nil
    }

    public var isFolder: Bool { text.isEmpty || text.hasSuffix("/") }

    /// Each segment percent-encoded (RFC 3986 unreserved characters kept), joined by `/`.
    public var urlEncoded: String {
        text.split(separator: "/", omittingEmptySubsequences: false).map { Self.encoded(String($0)) }.joined(separator: "/")
    }

    /// `text` percent-encoded as one URL component (a query value).
    public static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let isUnreserved = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            if isUnreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// This path under `prefix` (a remote's `--prefix`, itself a path or empty).
    public func under(_ prefix: String) -> String {
        prefix.isEmpty ? text : (prefix.hasSuffix("/") ? prefix + text : prefix + "/" + text)
    }

    public static func < (lhs: KVPath, rhs: KVPath) -> Bool { lhs.text < rhs.text }

    public var description: String { text }
}
