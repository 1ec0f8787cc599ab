extension String {
    /// Text from outside made safe for one log line or one terminal line: newlines, escapes and
    /// other control characters (C0, DEL and C1, where U+009B is an 8-bit CSI) become spaces;
    /// with `keepingTabsAndNewlines`, tabs and line feeds stay (text laid out for a terminal).
    public func replacingControlCharacters(keepingTabsAndNewlines: Bool = false) -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { scalar in
            let value = scalar.value
            if keepingTabsAndNewlines && (value == 0x09 || value == 0x0A) { return scalar }
            return value < 0x20 || (0x7F...0x9F).contains(value) ? " " : scalar
        }))
    }
}
