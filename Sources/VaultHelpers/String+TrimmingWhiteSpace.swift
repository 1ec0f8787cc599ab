extension String {
    /// Without leading and trailing spaces, tabs, carriage returns and newlines (Go's strings.TrimSpace, for ASCII).
    var trimmingWhiteSpace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
