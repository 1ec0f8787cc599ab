#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A valid access token of a sign-in session.
public struct AccessToken: Sendable, Equatable {
    public var accessToken: String
    /// Usually "Bearer".
    public var tokenType: String
    /// nil when the provider gave no lifetime.
    public var expiresAt: Date?
    /// The session's account.
    public var account: String

    public init(accessToken: String, tokenType: String, expiresAt: Date?, account: String) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.account = account
    }
}
