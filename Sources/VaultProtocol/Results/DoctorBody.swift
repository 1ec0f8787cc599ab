/// `doctor`: every check of every store, and whether the store in use works.
public struct DoctorBody: Codable, Sendable, Equatable {
    public var selected: String
    public var selectedReason: String
    public var selectedWorks: Bool
    public var checks: [CheckBody]
    /// Each remote engine, asked just now (absent when there are none).
    public var remotes: [RemoteBody]?
    /// Each space this device is in (absent when none).
    public var spaces: [SpaceBody]?

    enum CodingKeys: String, CodingKey {
        case selected, checks, remotes, spaces
        case selectedReason = "selected_reason"
        case selectedWorks = "selected_works"
    }

    public init(selected: String, selectedReason: String, selectedWorks: Bool, checks: [CheckBody]) {
        self.selected = selected
        self.selectedReason = selectedReason
        self.selectedWorks = selectedWorks
        self.checks = checks
    }
}
