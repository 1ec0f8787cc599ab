/// `device_start`: asks a device authorization endpoint for codes (RFC 8628 §3.1).
public struct DeviceStartRequest: Codable, Sendable, Equatable {
    public var deviceEndpoint: String
    public var clientID: String?
    public var clientSecret: String?
    public var scope: String?

    public init(deviceEndpoint: String, clientID: String? = nil, clientSecret: String? = nil, scope: String? = nil) {
        self.deviceEndpoint = deviceEndpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: WireField.self)
        deviceEndpoint = try container.required(.deviceEndpoint)
        clientID = try container.optional(.clientID)
        clientSecret = try container.optional(.clientSecret)
        scope = try container.optional(.scope)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: WireField.self)
        try container.encode(deviceEndpoint, forKey: .deviceEndpoint)
        try container.encodeIfPresent(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encodeIfPresent(scope, forKey: .scope)
    }
}
