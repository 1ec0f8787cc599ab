/// `approve_answer`: the approver's answer to the pending request `request` (its `approval.id`): `once`, `minutes` (for
/// `minutes` minutes, 1 to 1440), `always` (writes an allow rule for the caller's program) or `deny`.
public struct ApprovalAnswer: Codable, Sendable, Equatable {
    public var id: Int
    public var answer: String
    public var minutes: Int?

    /// `request`, since `id` is the envelope's.
    enum CodingKeys: String, CodingKey {
        case id = "request"
        case answer, minutes
    }

    public init(id: Int, answer: String, minutes: Int? = nil) {
        self.id = id
        self.answer = answer
        self.minutes = minutes
    }
}
