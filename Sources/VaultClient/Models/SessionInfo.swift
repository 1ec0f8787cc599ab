#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// A sign-in session's non-secret details.
public struct SessionInfo: Sendable, Equatable {
    public var provider: ProviderKind
    /// The email or user id the provider gave.
    public var user: String?
    /// When the access token expires; nil when the provider gave no lifetime.
    public var expiresAt: Date?
    /// The provider rejected the refresh token: the user must sign in again.
    public var needsSignIn: Bool

    public init(provider: ProviderKind, user: String?, expiresAt: Date?, needsSignIn: Bool) {
        self.provider = provider
        self.user = user
        self.expiresAt = expiresAt
        self.needsSignIn = needsSignIn
    }
}
