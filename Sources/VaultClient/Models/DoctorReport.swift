import VaultCore

/// What `doctor` found: every check of every store, and whether the store in use works.
public struct DoctorReport: Sendable, Equatable {
    public struct Check: Sendable, Equatable {
        public var store: StoreKind
        public var name: String
        public var ok: Bool
        public var detail: String
    }

    public var selected: StoreKind
    public var selectedReason: String
    public var selectedWorks: Bool
    public var checks: [Check]
    /// Each remote engine, asked just now.
    public var remotes: [RemoteInfo] = []
    /// Each space this device is in: its devices, pending pushes, conflicts, refusals.
    public var spaces: [SpaceInfo] = []
}
