import VaultCore

extension Timestamp {
    /// `seconds` since the epoch as RFC 3339, or nil when it is not a finite time within
    /// `ProviderValue.unixTimes`: never an unchecked conversion to an integer.
    public static func rfc3339(checkedSeconds seconds: Double) -> String? {
        guard seconds.isFinite, ProviderValue.unixTimes.contains(seconds) else { return nil }
        return rfc3339(seconds: seconds)
    }
}
