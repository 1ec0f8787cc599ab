/// How a space stands on this device (`VaultConnection.space…`): `vaultctl space status`.
public struct SpaceInfo: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public var id: String
        public var name: String
        /// `pending`, `admitted` or `removed`.
        public var state: String
        public var isCurrent: Bool
    }

    public struct Conflict: Sendable, Equatable {
        public var service: String
        public var account: String
        /// The item holding the other edit.
        public var copy: String
        public var device: String
        public var at: String
    }

    public var name: String
    public var remote: String
    public var path: String
    public var device: String
    public var deviceName: String
    public var admitted: Bool
    public var generation: Int
    /// This device's fingerprint words while it waits to be admitted.
    public var fingerprint: [String]
    /// Empty when the engine could not be asked.
    public var devices: [Device]
    public var items: Int
    /// Items changed here and not pushed yet (0 in `addToSpace`'s answer, which does not count them).
    public var pending: Int
    public var heldBack: Int
    public var lastPull: String?
    public var lastPush: String?
    public var conflicts: [Conflict]
    public var problems: [String]
    /// vaultd's sentence about what the operation did, if it said one.
    public var message: String?
}
