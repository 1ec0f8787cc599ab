/// What vaultd knows about one remote between requests, in memory only: whether the engine
/// answered last time and, while it does not, since when, so that a burst of reads served
/// from the cache does not wait on a dead engine once per read.
struct RemoteState: Sendable {
    var reachable: Bool?
    var problem: String?
    /// Seconds since 1970 of the last failed attempt to reach the engine.
    var lastFailure: Double?
    /// Seconds since 1970 of the last answer, and of the last background refresh that reached every cached secret.
    var lastContact: Double?
    var lastRefresh: Double?

    /// Whether, at `now`, the cache is served without asking the engine: it failed less than
    /// `retryAfter` seconds ago (the background refresh asks again meanwhile).
    func skipsEngine(at now: Double, retryAfter: Double) -> Bool {
        guard reachable == false, let lastFailure else { return false }
        return now - lastFailure < retryAfter
    }
}
