/// One request's reads of a store, checked once: the first read through the view looks for other
/// processes' writes as any read does (the file store: one `poll` of its directory's watch), and
/// the request's later reads (the access rules, the item, the audit key) skip that look and use
/// what it found (`VaultStore.caughtUp`). The request so reads the store as it was at that first
/// read, as if it had run at that instant. Writes always look, under their inter-process lock.
///
/// A door makes one per request and hands it, with the caller, to everything the request reads
/// through; it is used by that request alone, one read after another.
public final class StoreReadView: @unchecked Sendable {
    /// The store the view has looked at (`VaultStore.identity`), nil before its first read.
    private var looked: ObjectIdentifier?

    public init() {}

    /// `store` as this request reads it: itself at the first read, then its caught-up view.
    public func reading(_ store: any VaultStore) -> any VaultStore {
        let identity = store.identity
        if looked == identity { return store.caughtUp() }
        looked = identity
        return store
    }

    /// The next read looks again: for a request that waited (for an approver's answer, say), so
    /// that what it reads afterwards is not as old as the wait.
    public func lookAgain() {
        looked = nil
    }
}
