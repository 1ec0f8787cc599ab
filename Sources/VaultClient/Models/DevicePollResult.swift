/// One poll of a device sign-in.
public enum DevicePollResult: Sendable, Equatable {
    /// Not approved yet: poll again after the interval.
    case pending
    /// The server asked to poll more slowly: add 5 seconds to the interval.
    case slowDown
    /// Approved: the session is stored.
    case signedIn(ItemMetadata)
}
