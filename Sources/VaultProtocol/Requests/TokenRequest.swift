/// `token`: a session by name, and how long the returned token must still be valid.
public struct TokenRequest: Codable, Sendable, Equatable {
    public var service: String
    public var account: String?
    /// Seconds; a token expiring sooner is refreshed first.
    public var minTTL: Double

    public static let defaultMinTTL = 60.0

    enum CodingKeys: String, CodingKey {
        case service, account
        case minTTL = "min_ttl"
    }

    public init(service: String, account: String? = nil, minTTL: Double = TokenRequest.defaultMinTTL) {
        self.service = service
        self.account = account
        self.minTTL = minTTL
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        service = try container.decode(String.self, forKey: .service)
        account = try container.decodeIfPresent(String.self, forKey: .account)
        let requested = try container.decodeIfPresent(Double.self, forKey: .minTTL) ?? Self.defaultMinTTL
        minTTL = requested.isFinite ? max(0, requested) : Self.defaultMinTTL
    }
}
