/// `audit`: the records since `since` (RFC 3339), or after the record whose `time` was `after`
/// (for following); with `wait` (seconds, at most 25), vaultd waits that long for a newer record
/// when there is none yet.
public struct AuditRequest: Codable, Sendable, Equatable {
    public var since: String?
    public var after: String?
    public var wait: Double?

    public init(since: String? = nil, after: String? = nil, wait: Double? = nil) {
        self.since = since
        self.after = after
        self.wait = wait
    }
}
