extension String {
    /// The text's lines, split at each LF scalar, each without a CR before its LF, and with the
    /// empty line after a final LF left out. Splitting by scalar matters: `"\r\n"` is one Swift
    /// Character, so `split(separator: "\n")` reads a CRLF file as a single line.
    public var lines: [Substring] {
        var lines: [Substring] = []
        var start = unicodeScalars.startIndex
        var index = start
        while index < unicodeScalars.endIndex {
            if unicodeScalars[index] == "\n" {
                lines.append(Self.line(self, start, index))
                start = unicodeScalars.index(after: index)
            }
            index = unicodeScalars.index(after: index)
        }
        if start < unicodeScalars.endIndex { lines.append(Self.line(self, start, unicodeScalars.endIndex)) }
        return lines
    }

    private static func line(_ text: String, _ start: String.Index, _ end: String.Index) -> Substring {
        var end = end
        if end > start, text.unicodeScalars[text.unicodeScalars.index(before: end)] == "\r" {
            end = text.unicodeScalars.index(before: end)
        }
        return Substring(text.unicodeScalars[start..<end])
    }
}
