/// One response line: `{"id":…,"ok":true,"result":{…}}` or `{"error":{…},"id":…,"ok":false}`,
/// in the order of the requests. A response is a result or an error, never both, never neither.
public struct ResponseLine: Codable, Sendable, SecretCarrying {
    public var id: RequestID
    public var response: Response

    /// The one object of a response that may carry a secret: the item `get` returns.
    static let secretPath = ["result", "item"]
    static let secretKeys: Set<String> = ["secret", "secret_b64"]

    enum CodingKeys: String, CodingKey { case id, ok, result, error }

    public init(id: RequestID?, _ response: Response) {
        self.id = id ?? .null
        self.response = response
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(RequestID.self, forKey: .id) ?? .null
        if try container.decode(Bool.self, forKey: .ok) {
            response = .success(try container.decode(ResultBody.self, forKey: .result))
        } else {
            response = .failure(try container.decode(ErrorBody.self, forKey: .error))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        switch response {
        case .success(let result):
            try container.encode(true, forKey: .ok)
            try container.encode(result, forKey: .result)
        case .failure(let error):
            try container.encode(false, forKey: .ok)
            try container.encode(error, forKey: .error)
        }
    }
}
