import VaultCore

/// `approve_next`: registers this connection as an approver (until it closes) and waits up to
/// `wait` seconds (at most 25; default 20) for a request that needs an answer. The first
/// `approve_next` of a connection carries `secret`, the approval secret the person typed: only a
/// connection that proved it is an approver.
public struct ApprovalWait: Codable, Sendable {
    public var wait: Double?
    public var secret: SecretBytes?

    enum CodingKeys: String, CodingKey { case wait, secret }

    public init(wait: Double? = nil, secret: SecretBytes? = nil) {
        self.wait = wait
        self.secret = secret
    }

    public init(from decoder: Decoder) throws {
        wait = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Double.self, forKey: .wait)
        secret = try SecretFields.of(decoder).string(CodingKeys.secret.stringValue)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(wait, forKey: .wait)
        if let secret { try container.encodeSecret(secret, as: .text, forKey: .secret, in: encoder) }
    }
}
