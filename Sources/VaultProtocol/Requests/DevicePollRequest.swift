import VaultCore

/// `device_poll`: asks the token endpoint whether the device code was approved (RFC 8628 §3.4),
/// and where to keep the session once it is (account default `default`).
public struct DevicePollRequest: Codable, Sendable, Equatable {
    public var service: String
    public var account: String?
    public var client: OAuth2Settings
    public var deviceCode: String

    public init(service: String, account: String? = nil, client: OAuth2Settings, deviceCode: String) {
        self.service = service
        self.account = account
        self.client = client
        self.deviceCode = deviceCode
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: WireField.self)
        service = try container.required(.service)
        account = try container.optional(.account)
        client = try container.oauth2Settings()
        deviceCode = try container.required(.deviceCode)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: WireField.self)
        try container.encode(service, forKey: .service)
        try container.encodeIfPresent(account, forKey: .account)
        try container.encode(client)
        try container.encode(deviceCode, forKey: .deviceCode)
    }
}
