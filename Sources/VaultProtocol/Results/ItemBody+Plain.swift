extension ItemBody {
    /// No session and no attributes: what the hot paths write and read.
    var isPlain: Bool { session == nil && attributes == nil }
}
