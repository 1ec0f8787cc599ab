/// What `migrate` did. `conflicts` are keys present in both stores with different secrets: both kept.
public struct MigrationBody: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var copied: Int
    public var alreadyPresent: Int
    public var removed: Int
    public var conflicts: [KeyBody]

    enum CodingKeys: String, CodingKey {
        case from, to, copied, removed, conflicts
        case alreadyPresent = "already_present"
    }

    public init(from: String, to: String, copied: Int, alreadyPresent: Int, removed: Int, conflicts: [KeyBody]) {
        self.from = from
        self.to = to
        self.copied = copied
        self.alreadyPresent = alreadyPresent
        self.removed = removed
        self.conflicts = conflicts
    }
}
