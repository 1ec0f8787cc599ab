extension String {
    /// ASCII white space as Go's strings.TrimSpace sees it: space, tab, newline, carriage return,
    /// vertical tab and form feed.
    public static let asciiWhitespace: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"]

    /// Without leading and trailing `characters` (by Unicode scalar, so "\r\n" is two of them).
    public func trimming(_ characters: Set<Unicode.Scalar>) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !characters.contains($0) }),
              let last = scalars.lastIndex(where: { !characters.contains($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
