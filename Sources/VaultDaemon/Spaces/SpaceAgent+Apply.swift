import VaultCore
import VaultSpaces

/// Applying another device's record to the local item, and settling a conflict: when the item
/// also changed here since its last sync, the later edit stays the item and the other is kept
/// beside it as a conflict copy (a local item, not shared), listed by `space status` and
/// `doctor` until `space resolve`. A deletion never wins over an edit: nothing is lost.
extension SpaceAgent {
    /// `position`: the item's place in `state.items` (nil: not tracked yet; it is appended).
    func apply(_ record: SpaceItemRecord, entry: String, version: Int, at position: Int?, _ state: inout SpaceState, _ report: inout RoundReport) throws {
        let key: ItemKey
        let kind = ItemKind(rawValue: record.kind)
        do {
            key = try ItemKey(service: record.service, account: record.account)
        } catch {
            throw SpaceError.tampered("entry \(entry) names an item vault cannot keep")
        }
        guard !key.isReserved, kind != nil, kind != .access, let secret = record.secretBytes else {
            throw SpaceError.tampered("entry \(entry) holds a record of a kind or name this device does not take from a space")
        }
        // Taken out of the space here: a later deletion touches nothing here; a later edit shares it again.
        if let position, state.items[position].left, record.deleted {
            state.items[position].entry = entry
            state.items[position].seq = record.seq
            state.items[position].version = version
            return
        }
        // Neither overwritten nor copied out: a conflict copy would carry its secret without its rules.
        guard !isGuarded(key) else { throw SpaceError.guardedHere("\(key)") }
        let position = position ?? {
            state.items.append(SpaceState.Tracked(service: record.service, account: record.account))
            return state.items.count - 1
        }()
        let tracked = state.items[position]
        state.items[position].entry = entry
        state.items[position].seq = record.seq
        state.items[position].version = version
        state.items[position].left = false
        let local = localItem(record.service, record.account)
        let changedHere = tracked.left || tracked.seq == 0 && tracked.modified == nil ? local != nil : Self.isPending(tracked, local?.info)
        if changedHere, let local, !Self.same(local, record) {
            report.conflicts += 1
            // An edit here against a deletion there, or a later edit here: the local item stays
            // (and is pushed next round); theirs is the copy. Otherwise theirs is the item.
            if record.deleted || local.info.modified > record.modified {
                if !record.deleted { try keepCopy(record.service, record.account, secret: secret, label: record.label, kind: kind!, from: record.writer, at: record.modified, &state) }
                return
            }
            try keepCopy(local.info.key.service, local.info.key.account, secret: local.secret, label: local.info.label, kind: local.info.kind,
                         from: try state.deviceID(), at: local.info.modified, &state)
        }
        let info = try writeLocal(key, record, secret: secret, kind: kind!)
        state.items[position].modified = info?.modified
        state.items[position].deleted = record.deleted
    }

    static func same(_ local: Item, _ record: SpaceItemRecord) -> Bool {
        !record.deleted && local.secret == record.secretBytes && local.info.label == record.label
            && local.info.comment == record.comment && local.info.kind.rawValue == record.kind
    }

    /// The record written to the local item (deleted for a tombstone); the item's info after.
    func writeLocal(_ key: ItemKey, _ record: SpaceItemRecord, secret: SecretBytes, kind: ItemKind) throws -> ItemInfo? {
        if record.deleted {
            let removed = try store.perform { store -> Bool in
                do { try store.delete(key) } catch VaultError.notFound(_) { return false }
                return true
            }
            if removed { changes.post(.deleted(key)) }
            return nil
        }
        let existed = localItem(key.service, key.account) != nil
        let info = try store.perform { try $0.set(key, secret: secret, changes: ItemChanges(label: record.label, comment: record.comment, kind: kind)) }
        changes.postWrite(info, added: !existed)
        return info
    }

    /// Keeps the losing edit as the item `ACCOUNT (conflict from DEVICE)`, noted in the state;
    /// `ACCOUNT (conflict from DEVICE, 2)` and so on when that name is taken (an earlier copy
    /// not resolved yet is never overwritten).
    func keepCopy(_ service: String, _ account: String, secret: SecretBytes, label: String, kind: ItemKind,
                  from device: String, at time: Int64, _ state: inout SpaceState) throws {
        var copy = "\(account) (conflict from \(device.prefix(8)))"
        var number = 2
        while localItem(service, copy) != nil {
            copy = "\(account) (conflict from \(device.prefix(8)), \(number))"
            number += 1
        }
        let key = try ItemKey(service: service, account: copy)
        let info = try store.perform { try $0.set(key, secret: secret, changes: ItemChanges(label: label, kind: kind)) }
        changes.postWrite(info, added: true)
        state.conflicts.removeAll { $0.service == service && $0.copy == copy }
        state.conflicts.append(SpaceState.Conflict(service: service, account: account, copy: copy, device: device, at: time))
        logger.info("space '\(state.name)': two edits of one item; the other is kept as a conflict copy", naming: "\(service) (\(copy))")
    }
}
