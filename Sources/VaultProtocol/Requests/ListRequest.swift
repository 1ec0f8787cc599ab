/// `list`: every item, or one service's.
public struct ListRequest: Codable, Sendable, Equatable {
    public var service: String?

    public init(service: String? = nil) { self.service = service }
}
