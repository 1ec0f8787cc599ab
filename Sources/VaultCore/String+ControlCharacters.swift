extension String {
    /// Text from outside made safe for one log line or one terminal line: newlines, escapes and
    /// other control characters become spaces.
    public func replacingControlCharacters() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}
