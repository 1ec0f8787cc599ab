/// What `resolve_credential` found (`result.resolution`): `found` is `item` (vault's own item,
/// in `result.item`), `foreign` (the other helper's item, in `result.item` as `foreign_get`
/// answers it), `token` (the linked session's token, in `result.token`), `ambiguous` (`count`
/// credentials `among` vault's own items (`item`) or the other helper's (`foreign`), and no
/// username to choose one) or `none`.
public struct ResolutionBody: Codable, Sendable, Equatable {
    public var found: String
    public var among: String?
    public var count: Int?

    public init(found: String, among: String? = nil, count: Int? = nil) {
        self.found = found
        self.among = among
        self.count = count
    }
}
