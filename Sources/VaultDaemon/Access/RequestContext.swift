import VaultCore

/// One request's caller and what it touched, filled in while it is answered: the access check
/// reads the caller, the audit log the item and how access was granted. Used on the one thread
/// that answers the request.
final class RequestContext: @unchecked Sendable {
    let peer: PeerProcess?
    /// The item the request read or changed, once its handler resolved it.
    var item: ItemKey?
    /// How access to a guarded item was granted ("rule", "approved once"), or nil.
    var grant: String?

    init(peer: PeerProcess?) {
        self.peer = peer
    }

    /// Established on first use, from /proc (see `PeerProcess.identify`).
    lazy var caller: CallerIdentity = peer?.identify() ?? .unknown
}
