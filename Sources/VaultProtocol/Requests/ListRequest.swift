/// `list`: every item, or one service's; paged when `limit` is given (docs/protocol.md, "Paged
/// listing"): `after` is the previous page's `next`.
public struct ListRequest: Codable, Sendable, Equatable {
    public var service: String?
    /// The page token of the previous page (`next`); absent for the first page.
    public var after: String?
    /// The most items one page holds; a page may hold fewer (it also stops near `pageBytes`).
    public var limit: Int?

    /// The page size clients ask for, and the largest a daemon grants.
    public static let defaultLimit = 2_000
    public static let maxLimit = 10_000
    /// A page stops before its items could take more than this on the wire: well under a
    /// client's `MessageCodec.maxResponseBytes`, whatever the items hold.
    public static let pageBytes = 2 << 20

    public init(service: String? = nil, after: String? = nil, limit: Int? = nil) {
        self.service = service
        self.after = after
        self.limit = limit
    }
}
