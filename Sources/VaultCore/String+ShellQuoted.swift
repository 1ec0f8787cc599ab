extension String {
    /// `'...'` with every `'` written as `'\''`: the shell reads the text back unchanged.
    public var shellQuoted: String {
        "'" + split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
