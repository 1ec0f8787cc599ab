import VaultCore

/// The engine's token vaultd holds for a remote: never handed to a client, renewed before it
/// expires (`auth/token/renew-self`), replaced by a new login when renewal is refused.
public struct EngineToken: Codable, Sendable, Equatable {
    public var value: String
    /// Seconds since 1970 at which the token expires; nil: it does not (a root token).
    public var expires: Double?
    public var renewable: Bool
    /// The lease the engine last granted, in seconds (0: none).
    public var lease: Double
    public var obtained: Double

    public init(value: String, lease: Double, renewable: Bool, now: Double) {
        self.value = value
        self.lease = lease
        self.renewable = renewable
        self.obtained = now
        self.expires = lease > 0 ? now + lease : nil
    }

    /// Seconds left at `now`; nil when it does not expire.
    public func remaining(at now: Double) -> Double? { expires.map { max(0, $0 - now) } }

    /// Whether it should be renewed (or replaced) before use at `now`: two thirds of its lease are
    /// gone, or fewer than `floor` seconds are left.
    public func wantsRenewal(at now: Double, floor: Double) -> Bool {
        guard let expires else { return false }
        let left = expires - now
        return left <= floor || left <= lease / 3
    }

    public func isExpired(at now: Double) -> Bool { expires.map { now >= $0 - 1 } ?? false }
}
