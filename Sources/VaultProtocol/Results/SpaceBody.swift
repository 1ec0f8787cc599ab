/// How a space stands on this device (`space_status`, and the answer of every `space_*`
/// operation): where it is, this device, the devices, the items shared and those waiting to be
/// pushed, the last pull and push, conflict copies, and what the engine was refused for.
public struct SpaceBody: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        /// `pending`, `admitted` or `removed`.
        public var state: String
        /// True for this device.
        public var current: Bool?

        public init(id: String, name: String, state: String, current: Bool? = nil) {
            self.id = id
            self.name = name
            self.state = state
            self.current = current
        }
    }

    public struct Conflict: Codable, Sendable, Equatable {
        public var service: String
        public var account: String
        /// The item holding the other edit.
        public var copy: String
        public var device: String
        /// RFC 3339.
        public var at: String

        public init(service: String, account: String, copy: String, device: String, at: String) {
            self.service = service
            self.account = account
            self.copy = copy
            self.device = device
            self.at = at
        }
    }

    public var name: String
    public var remote: String
    public var path: String
    public var device: String
    public var deviceName: String
    public var admitted: Bool
    public var generation: Int
    /// The fingerprint words of this device, while it waits to be admitted.
    public var fingerprint: [String]?
    public var devices: [Device]?
    public var items: Int
    /// Items changed here and not pushed yet (absent when not counted: `space_add`'s answer).
    public var pending: Int?
    /// Items that are not pushed because they have access rules (a rule stays on its device).
    public var heldBack: Int?
    public var lastPull: String?
    public var lastPush: String?
    public var conflicts: [Conflict]?
    public var problems: [String]?

    public init(name: String, remote: String, path: String, device: String, deviceName: String, admitted: Bool, generation: Int, items: Int, pending: Int?) {
        self.name = name
        self.remote = remote
        self.path = path
        self.device = device
        self.deviceName = deviceName
        self.admitted = admitted
        self.generation = generation
        self.items = items
        self.pending = pending
    }
}
