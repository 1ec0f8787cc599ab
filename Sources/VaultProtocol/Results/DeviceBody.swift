/// The device authorization grant's state (RFC 8628).
public struct DeviceBody: Codable, Sendable, Equatable {
    public var deviceCode: String?
    public var userCode: String?
    public var verificationURI: String?
    public var verificationURIComplete: String?
    public var expiresIn: Double?
    public var interval: Double?
    /// `device_poll`: "pending" or "slow_down".
    public var state: String?

    enum CodingKeys: String, CodingKey {
        case interval, state
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
    }

    public init(deviceCode: String? = nil, userCode: String? = nil, verificationURI: String? = nil, verificationURIComplete: String? = nil,
                expiresIn: Double? = nil, interval: Double? = nil, state: String? = nil) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
        self.state = state
    }
}
