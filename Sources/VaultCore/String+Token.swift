extension String {
    /// The longest engine token (or wrapping token) vault takes.
    public static let maximumTokenBytes = 4096

    /// Whether this is shaped like an engine's token: 1 to `maximumTokenBytes` bytes of visible
    /// ASCII, no spaces, so it can travel in a header and never carries a line break.
    public var isTokenShaped: Bool {
        !isEmpty && utf8.count <= Self.maximumTokenBytes && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
