#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// An item's key and metadata, never its secret: what `list` returns and writes answer with.
/// Encodes as the documented JSON of an item (docs/protocol.md), as `vaultctl list --json` prints.
public struct ItemMetadata: Sendable, Equatable {
    public var service: String
    public var account: String
    public var label: String
    public var comment: String
    public var kind: ItemKind
    public var created: Date
    public var modified: Date
    /// For sign-in sessions: who, with which provider, until when. Never tokens.
    public var session: SessionInfo?
    /// How many other items the store holds under this key (Secret Service duplicates another
    /// tool wrote): vault reads the newest and writes and deletes all of them.
    public var duplicates: Int = 0

    public init(service: String, account: String, label: String, comment: String, kind: ItemKind, created: Date, modified: Date, session: SessionInfo? = nil) {
        self.service = service
        self.account = account
        self.label = label
        self.comment = comment
        self.kind = kind
        self.created = created
        self.modified = modified
        self.session = session
    }
}
