/// The name of a remote engine (`vaultctl remote add NAME`): 1 to 64 of `A-Z a-z 0-9 . _ -`,
/// starting with a letter or digit, so that it reads the same in a `kv://NAME/...` reference, a
/// listing and a log line.
public struct RemoteName: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let text: String

    public static let maximumLength = 64

    public init(_ text: String) throws(VaultError) {
        if let problem = Self.problem(with: text) { throw VaultError.invalidInput(problem) }
        self.text = text
    }

    /// What makes `text` unusable as a remote's name (or, by the same rules, a `kind`'s: a
    /// space's), or nil.
    public static func problem(with text: String, kind: String = "remote") -> String? {
        let shown = text.count > 40 ? String(text.prefix(40)).replacingControlCharacters() + "…" : text.replacingControlCharacters()
        guard !text.isEmpty else { return "a \(kind)'s name must not be empty" }
        guard text.utf8.count <= maximumLength else { return "\(kind) name '\(shown)' is longer than \(maximumLength) characters" }
        guard text.utf8.allSatisfy(isAllowed), let first = text.utf8.first, isAlphanumeric(first) else {
            return "\(kind) name '\(shown)' must be letters, digits, '.', '_' or '-', starting with a letter or digit"
        }
        return nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    public static func < (lhs: RemoteName, rhs: RemoteName) -> Bool { lhs.text < rhs.text }

    public var description: String { text }
}
