/// An item's access rules (`vaultctl rules`): whether each access needs an approver's answer,
/// and the programs allowed to read it, each pinned by path and content hash.
public struct ItemRules: Sendable, Equatable {
    public struct AllowedProgram: Sendable, Equatable {
        public var path: String
        /// Lowercase hex SHA-256 of the file when it was allowed.
        public var sha256: String
        /// When it was allowed (RFC 3339).
        public var added: String
        /// For a script: the interpreter it must run under, and that file's SHA-256.
        public var interpreter: String?
        public var interpreterSHA256: String?
    }

    public var service: String
    public var account: String
    public var confirm: Bool
    public var allowed: [AllowedProgram]
}
