import VaultCore

/// Moves every item from one store to another without ever holding the only copy in flight:
/// 1. copy each item that the destination lacks, then read it back and compare;
/// 2. only when every item is present and verified in the destination, delete the originals.
/// An item the destination already holds with the same secret counts as copied (a re-run after an
/// interruption); one it holds with a *different* secret is a conflict: both are kept, the
/// original is not deleted, and the report names it. Interrupted at any point, nothing is lost,
/// and running again finishes the job.
///
/// Several source items under one key (Secret Service duplicates) become one: the newest, with
/// its own label, comment and kind (never one item's metadata with another's secret); the report
/// names the keys collapsed. Source items no key can address are left in place and reported.
public enum StoreMigration {
    public struct Report: Sendable, Equatable {
        public var copied = 0
        public var alreadyPresent = 0
        public var removed = 0
        public var conflicts: [ItemKey] = []
        /// Keys under which the source held several items; the newest was moved, all removed.
        public var collapsed: [ItemKey] = []
        /// Source items vault cannot address: not moved, still in the source.
        public var leftInPlace: [UnaddressableItem] = []

        public init(copied: Int = 0, alreadyPresent: Int = 0, removed: Int = 0, conflicts: [ItemKey] = [],
                    collapsed: [ItemKey] = [], leftInPlace: [UnaddressableItem] = []) {
            self.collapsed = collapsed
            self.leftInPlace = leftInPlace
            self.copied = copied
            self.alreadyPresent = alreadyPresent
            self.removed = removed
            self.conflicts = conflicts
        }
    }

    /// `progress` receives one line per step, for logs (names only, never secrets).
    public static func migrate(from source: any VaultStore, to destination: any VaultStore, progress: (String) -> Void = { _ in }) throws -> Report {
        var report = Report()
        let items = try source.list(service: nil)
        report.leftInPlace = try source.unaddressable(service: nil)
        for item in report.leftInPlace {
            progress("left in place: an item of service '\(String(item.service.replacingControlCharacters().prefix(80)))' that vault cannot address (\(item.reason))")
        }
        var verified: [(key: ItemKey, items: Int)] = []
        for (index, listed) in items.enumerated() {
            // The item read is the one copied: its metadata with its secret, not the listing's.
            let original = try source.get(listed.key)
            let info = original.info
            if info.duplicates > 0 {
                report.collapsed.append(info.key)
                progress("\(info.key) has \(info.duplicates + 1) items in the \(source.kind) store; the newest is moved and all are removed")
            }
            let existing: Item?
            do {
                existing = try destination.get(info.key)
            } catch VaultError.notFound {
                existing = nil
            }
            // vault's own items (access rules, the audit key) are not counted, and the source's
            // replace the destination's: they belong to the items being moved.
            let own = info.key.isReserved
            if let existing, own, existing.secret != original.secret {
                _ = try destination.set(info.key, secret: original.secret, changes: Self.changes(copying: info))
                guard try destination.get(info.key).secret == original.secret else {
                    throw VaultError.unavailable("the \(destination.kind.rawValue) store returned a different secret for vault's own \(info.key) after the copy; nothing was removed from the \(source.kind.rawValue) store")
                }
                verified.append((info.key, info.duplicates + 1))
                continue
            }
            if let existing {
                if existing.secret == original.secret {
                    if !own { report.alreadyPresent += 1 }
                    verified.append((info.key, info.duplicates + 1))
                } else {
                    report.conflicts.append(info.key)
                    progress("conflict: \(info.key) already exists in the \(destination.kind.rawValue) store with a different secret; both kept")
                }
                continue
            }
            try destination.add(info.key, secret: original.secret, changes: Self.changes(copying: info))
            let readBack = try destination.get(info.key)
            guard readBack.secret == original.secret else {
                throw VaultError.unavailable("the \(destination.kind.rawValue) store returned a different secret for \(info.key) after the copy; nothing was removed from the \(source.kind.rawValue) store")
            }
            if !own { report.copied += 1 }
            verified.append((info.key, info.duplicates + 1))
            progress("copied \(index + 1) of \(items.count): \(info.key)")
        }
        for (index, (key, count)) in verified.enumerated() {
            try source.delete(key)
            if !key.isReserved { report.removed += count }
            progress("removed \(index + 1) of \(verified.count) originals: \(key)")
        }
        return report
    }

    /// The changes that give the destination's item exactly the source item's metadata: label,
    /// comment, kind, other attributes and content type.
    private static func changes(copying info: ItemInfo) -> ItemChanges {
        ItemChanges(label: info.label, comment: info.comment, kind: info.kind, attributes: info.attributes, contentType: info.contentType)
    }
}
