import VaultCore

/// One request of a door, as the policy core takes it: who asks (a value the door built once),
/// and the request's one read view of the store (`StoreReadView`: the vault file looked at once,
/// at the request's first read).
struct ItemRequest: Sendable {
    let caller: CallerIdentity
    let reads: StoreReadView

    init(_ caller: CallerIdentity, reads: StoreReadView = StoreReadView()) {
        self.caller = caller
        self.reads = reads
    }
}
