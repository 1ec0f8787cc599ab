extension String {
    /// Text from outside made safe for one log line or one terminal line: newlines, escapes and
    /// other control characters (C0, DEL and C1, where U+009B is an 8-bit CSI) become spaces;
    /// with `keepingTabsAndNewlines`, tabs and line feeds stay (text laid out for a terminal).
    public func replacingControlCharacters(keepingTabsAndNewlines: Bool = false) -> String {
        // Most text has none: a scan of the UTF-8 bytes returns it as it is (a listing's table runs
        // every cell through here; rebuilding each one was half of `vaultctl list`'s time). C1
        // characters are encoded C2 80 to C2 9F (C2 is always a lead byte).
        var previous: UInt8 = 0
        var clean = true
        for byte in utf8 {
            let kept = keepingTabsAndNewlines && (byte == 0x09 || byte == 0x0A)
            if (byte < 0x20 && !kept) || byte == 0x7F || (previous == 0xC2 && byte <= 0x9F) {
                clean = false
                break
            }
            previous = byte
        }
        if clean { return self }
        return String(String.UnicodeScalarView(unicodeScalars.map { scalar in
            let value = scalar.value
            if keepingTabsAndNewlines && (value == 0x09 || value == 0x0A) { return scalar }
            return value < 0x20 || (0x7F...0x9F).contains(value) ? " " : scalar
        }))
    }
}

extension String {
    /// Whether a C0 control character or DEL is in it.
    public var containsControlCharacter: Bool {
        unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
