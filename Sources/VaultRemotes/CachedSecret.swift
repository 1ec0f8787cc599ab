#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// A remote secret's copy in the local store (`ItemKey.cached`), encrypted like any item: the
/// latest version vaultd read or wrote, and when the engine last confirmed it was the latest.
public struct CachedSecret: Codable, Sendable {
    public var secret: KVSecret
    /// Seconds since 1970 at which the engine last said this is the current version.
    public var confirmed: Double

    public init(secret: KVSecret, confirmed: Double) {
        self.secret = secret
        self.confirmed = confirmed
    }

    /// Seconds since the engine last confirmed it, at `now`.
    public func age(at now: Double) -> Double { max(0, now - confirmed) }

    public func encoded() throws -> SecretBytes { try secretJSON() }

    /// Nil for a copy that cannot be read: it is fetched again.
    public static func decoding(_ secret: SecretBytes) -> CachedSecret? {
        secret.withUnsafeBytes { try? JSONDecoder().decode(CachedSecret.self, from: Data($0)) }
    }
}
