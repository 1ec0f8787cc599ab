/// The codes of a device sign-in (RFC 8628 §3.2): show `userCode` and `verificationURI`, then
/// poll every `interval` seconds until approved or `expiresIn` seconds have passed.
public struct DeviceCodes: Sendable, Equatable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String?
    public var expiresIn: Double
    public var interval: Double
}
