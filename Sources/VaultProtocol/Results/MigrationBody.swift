/// What `migrate` did. `conflicts` are keys present in both stores with different secrets: both kept.
public struct MigrationBody: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var copied: Int
    public var alreadyPresent: Int
    public var removed: Int
    public var conflicts: [KeyBody]
    /// Keys under which the source held several items: the newest moved, all removed.
    public var collapsed: [KeyBody]?
    /// Source items no key can address: not moved, still in the source.
    public var leftInPlace: [UnaddressableBody]?
    /// The configuration file where `backend = TO` was recorded; absent when it could not be.
    public var recordedIn: String?

    enum CodingKeys: String, CodingKey {
        case from, to, copied, removed, conflicts, collapsed
        case alreadyPresent = "already_present"
        case leftInPlace = "left_in_place"
        case recordedIn = "recorded_in"
    }

    public init(from: String, to: String, copied: Int, alreadyPresent: Int, removed: Int, conflicts: [KeyBody]) {
        self.from = from
        self.to = to
        self.copied = copied
        self.alreadyPresent = alreadyPresent
        self.removed = removed
        self.conflicts = conflicts
        self.collapsed = nil
        self.leftInPlace = nil
        self.recordedIn = nil
    }
}
