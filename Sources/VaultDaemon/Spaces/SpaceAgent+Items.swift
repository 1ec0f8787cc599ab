import VaultCore
import VaultProtocol
import VaultRemotes
import VaultSpaces

/// Which items a space shares, conflicts settled by the user, and how the space stands.
extension SpaceAgent {
    /// Shares the local item: pushed at the next round. An item with access rules is refused.
    func add(_ name: String, service: String, account: String) throws -> SpaceState {
        let key = try ItemKey(service: service, account: account)
        guard !key.isReserved, localItem(service, account) != nil else { throw VaultError.notFound(key) }
        guard !isGuarded(key) else {
            throw VaultError.invalidInput("\(key) has access rules (or vaultd asks approval for every item), which hold on this device only: it is not shared; remove its rules first ('vaultctl rules \(service.shellQuoted) \(account.shellQuoted)')")
        }
        return try rounds.withLock { _ in
            // One small record written, not the space's whole state: sharing many items stays linear.
            let state = try record(name)
            guard state.admitted else { throw VaultError.invalidInput("this device is not admitted to space '\(name)' yet") }
            try track(SpaceState.Tracked(service: service, account: account), in: name)
            return state
        }
    }

    /// Takes the item out of the space: a tombstone goes to the other devices (which delete
    /// their copy); this device keeps its item.
    func remove(_ name: String, service: String, account: String) throws -> SpaceState {
        try rounds.withLock { _ in
            var state = try state(name)
            guard let position = state.tracked(service, account), !state.items[position].left else {
                throw VaultError.absent("\(service) (\(account)) is not shared in space '\(name)'")
            }
            let tracked = state.items[position]
            guard tracked.seq > 0 else {
                state.items.remove(at: position)
                try save(state)
                return state
            }
            let key = try state.key(state.generation)
            let me = try state.deviceID()
            let entry = try key.entryName(service: service, account: account)
            let tombstone = try SpaceItemRecord(service: service, account: account, secret: .empty, seq: tracked.seq + 1, writer: me,
                                                modified: Int64(clock() * 1000), deleted: true).sealed(name: entry, spaceID: state.spaceID, key: key)
            let version = try engine(state.remote, root: state.root, doing: "removing an item from space '\(name)'") { engine throws(EngineError) in
                try engine.write(SpaceEngine.item(entry), tombstone, cas: tracked.entry == entry ? tracked.version : nil)
            }
            // A record under an older key generation's name leaves the index with it.
            let older = tracked.entry.isEmpty || tracked.entry == entry ? [] : [tracked.entry]
            try record([entry: tracked.seq + 1], dropping: older, in: &state, writer: me)
            try? engine(state.remote, root: state.root, doing: "deleting entries of an older key") { engine throws(EngineError) in
                for old in older { try engine.delete(SpaceEngine.item(old)) }
            }
            // Its own tombstone is known here, so no round takes it for another device's deletion.
            state.items[position] = SpaceState.Tracked(service: service, account: account, entry: entry, seq: tracked.seq + 1, version: version,
                                                       deleted: true, left: true)
            try save(state)
            return state
        }
    }

    /// Settles a conflict: `keep` `item` drops the copy; `copy` makes the copy's secret the item's
    /// (pushed next round) and drops the copy.
    func resolve(_ name: String, service: String, account: String, keep: String) throws -> SpaceState {
        try rounds.withLock { _ in
            var state = try state(name)
            guard let conflict = state.conflicts.first(where: { $0.service == service && $0.account == account }) else {
                throw VaultError.absent("space '\(name)' has no conflict for \(service) (\(account))")
            }
            let copyKey = try ItemKey(service: service, account: conflict.copy), itemKey = try ItemKey(service: service, account: account)
            switch keep {
            case "item": break
            case "copy":
                let copy = try store.read { try $0.get(copyKey) }
                let info = try store.perform { try $0.set(itemKey, secret: copy.secret, changes: ItemChanges(label: copy.info.label, kind: copy.info.kind)) }
                changes.postWrite(info, added: false)
            default:
                throw VaultError.invalidInput("--keep takes item (the current value stays) or copy (the conflict copy's value becomes the item's), not '\(keep.replacingControlCharacters())'")
            }
            try? store.perform { try $0.delete(copyKey) }
            changes.post(.deleted(copyKey))
            state.conflicts.removeAll { $0.service == service && $0.account == account }
            try save(state)
            return state
        }
    }

    /// How the space stands; `devices` asks the engine for its device list (skipped, not
    /// failed, when the engine cannot be reached).
    /// `counts`: count the items waiting to be pushed (one listing of the local items).
    func body(_ state: SpaceState, devices: Bool, counts: Bool = true) -> SpaceBody {
        let me = (try? state.deviceID()) ?? ""
        let infos = counts ? localInfos() : [:]
        let pending = counts ? state.items.filter { Self.isPending($0, infos[Self.names($0)]) } : []
        let held = pending.filter(isHeldBack).count
        var body = SpaceBody(name: state.name, remote: state.remote, path: state.root, device: me, deviceName: state.deviceName,
                             admitted: state.admitted, generation: state.generation, items: (try? trackedCount(state.name)) ?? state.items.count,
                             pending: counts ? pending.count - held : nil)
        if !state.admitted, let keys = try? state.deviceKeys() { body.fingerprint = try? FingerprintWords.of(publicKey: keys.publicKey, spaceID: state.spaceID) }
        if devices, let listed = try? engine(state.remote, root: state.root, doing: "listing the devices of space '\(state.name)'", { engine throws(EngineError) in try Self.devices(engine).devices }) {
            body.devices = listed.sorted { $0.value.name < $1.value.name }.map { SpaceBody.Device(id: $0.key, name: $0.value.name, state: $0.value.state.rawValue, current: $0.key == me ? true : nil) }
        }
        body.heldBack = held > 0 ? held : nil
        body.lastPull = state.lastPull.map(Timestamp.rfc3339(seconds:))
        body.lastPush = state.lastPush.map(Timestamp.rfc3339(seconds:))
        body.conflicts = state.conflicts.isEmpty ? nil : state.conflicts.map {
            SpaceBody.Conflict(service: $0.service, account: $0.account, copy: $0.copy, device: $0.device, at: Timestamp.rfc3339(milliseconds: $0.at))
        }
        body.problems = state.problems.isEmpty ? nil : state.problems
        return body
    }
}
