import VaultCore
import VaultRemotes
import VaultSpaces

/// A sync round: pull what the index says moved (every entry opened and checked, a rollback
/// refused), then push what changed here with check-and-set and record it in the index. A
/// write another device made first is pulled at once and settled as a conflict.
extension SpaceAgent {
    struct RoundReport: Sendable, Equatable {
        var pulled = 0
        var pushed = 0
        var conflicts = 0
        var refused: [String] = []
    }

    /// One round for `name` now; its report.
    @discardableResult
    func sync(_ name: String) throws -> RoundReport {
        try rounds.withLock { _ in
            var state = try state(name)
            var report = RoundReport()
            if !state.admitted {
                guard try checkAdmission(&state) else { return report }
            }
            do {
                try applying {
                    try pull(&state, &report)
                    try push(&state, &report)
                }
            } catch {
                try? save(state)
                throw error
            }
            state.lastPull = clock()
            try save(state)
            if report != RoundReport() {
                logger.info("space '\(name)': pulled \(report.pulled), pushed \(report.pushed), \(report.conflicts) conflicts, \(report.refused.count) entries refused")
            }
            return report
        }
    }

    /// Every space, for the background timer; failures are logged, not thrown.
    func syncAll() {
        for state in states() {
            do { try sync(state.name) } catch let error as VaultError where error.code == .locked {
                return
            } catch {
                logger.debug("space '\(state.name)': round stopped: \(error)")
            }
        }
    }

    // MARK: Pull

    func pull(_ state: inout SpaceState, _ report: inout RoundReport) throws {
        let known = state.indexVersion
        let (version, fields) = try engine(state.remote, root: state.root, doing: "pulling space '\(state.name)'") { engine throws(EngineError) in
            let version = try engine.version(SpaceEngine.index)
            return (version, version == known ? nil : try engine.read(SpaceEngine.index)?.fields)
        }
        guard let fields else { return }
        let index: SpaceIndex, indexGeneration: Int
        do {
            indexGeneration = try SealedEntry.generation(of: fields, name: SpaceIndex.name)
            guard indexGeneration >= state.generation else { throw Self.olderGeneration("the index", indexGeneration, state) }
            if state.keys[String(indexGeneration)] == nil { _ = try checkAdmission(&state) }
            index = try SpaceIndex.opening(fields, spaceID: state.spaceID, key: state.key(indexGeneration))
        } catch let error as SpaceError {
            return refuse(error, &state, &report)
        }
        guard index.seq >= state.indexSeq else {
            return refuse("\(SpaceError.rolledBack("the index went back from seq \(state.indexSeq) to \(index.seq)"))", &state, &report)
        }
        var seqs: [String: Int] = [:], positions: [String: Int] = [:]
        positions.reserveCapacity(state.items.count)
        for (position, item) in state.items.enumerated() {
            positions[Self.names(item)] = position
            if !item.entry.isEmpty { seqs[item.entry] = item.seq }
        }
        let moved = index.entries.filter { name, seq in seqs[name] != seq }
        let read = try engine(state.remote, root: state.root, doing: "pulling space '\(state.name)'") { engine throws(EngineError) in
            try moved.keys.sorted().map { name throws(EngineError) in (name, try engine.read(SpaceEngine.item(name))) }
        }
        for (name, entry) in read {
            guard let entry else {
                refuse("the index names item entry \(name), which the engine does not hold", &state, &report)
                continue
            }
            do {
                let generation = try SealedEntry.generation(of: entry.fields, name: name)
                let record = try SpaceItemRecord.opening(entry.fields, name: name, spaceID: state.spaceID, key: state.key(generation))
                let listed = index.entries[name] ?? 0
                // Under an older key (a device removed since holds it too): only the record the index lists.
                guard generation >= indexGeneration || record.seq == listed else {
                    throw SpaceError.rolledBack("item entry \(name) is sealed under key generation \(generation) and holds seq \(record.seq), not the \(listed) the index of generation \(indexGeneration) lists")
                }
                let names = Self.names(record.service, record.account)
                let position = positions[names]
                let held = position.map { state.items[$0].seq } ?? 0
                guard record.seq >= listed, record.seq >= held else {
                    throw SpaceError.rolledBack("item entry \(name) holds seq \(record.seq), below \(max(listed, held)) already seen")
                }
                if record.seq == held, let position {
                    state.items[position].entry = name
                    state.items[position].version = entry.version
                    continue
                }
                // apply appends an item it did not track (after its checks), even when it then fails.
                let count = state.items.count
                defer { if state.items.count > count { positions[names] = count } }
                try apply(record, entry: name, version: entry.version, at: position, &state, &report)
                report.pulled += 1
            } catch let error as SpaceError {
                refuse(error, &state, &report)
            } catch let error as VaultError where error.code == .badRequest || error.code == .tooLarge {
                // A record this store cannot hold: never applicable.
                refuse(SpaceError.tampered("item entry \(name) holds an item this device cannot keep (a label, comment or secret past this store's limits)"), &state, &report)
            }
        }
        state.indexSeq = index.seq
        state.indexVersion = version
    }

    func refuse(_ problem: String, _ state: inout SpaceState, _ report: inout RoundReport) {
        logger.warning("space '\(state.name)': \(problem)")
        state.report(problem)
        report.refused.append(problem)
    }

    /// A refusal whose sentence may name an item: the log names it only at debug level
    /// (`Logger+ItemNames`); `space status` shows the whole sentence.
    func refuse(_ error: SpaceError, _ state: inout SpaceState, _ report: inout RoundReport) {
        guard case .guardedHere = error else { return refuse("\(error)", &state, &report) }
        logger.warning("space '\(state.name)': a record for an item with access rules on this device was not applied", naming: "\(error)")
        state.report("\(error)")
        report.refused.append("\(error)")
    }

    /// An entry sealed under a generation older than the newest this device holds: a device
    /// removed since holds that key, so it is refused as a rollback.
    static func olderGeneration(_ what: String, _ generation: Int, _ state: SpaceState) -> SpaceError {
        .rolledBack("\(what) is sealed under key generation \(generation), older than generation \(state.generation) this device holds")
    }

    // MARK: Push

    func push(_ state: inout SpaceState, _ report: inout RoundReport) throws {
        let me = try state.deviceID()
        let key = try state.key(state.generation)
        var writes: [(tracked: Int, entry: String, fields: [String: String], cas: Int, record: SpaceItemRecord, modified: Int64?)] = []
        let infos = localInfos()
        for (position, tracked) in state.items.enumerated() {
            guard Self.isPending(tracked, infos[Self.names(tracked)]), !isHeldBack(tracked) else { continue }
            let local = localItem(tracked.service, tracked.account)
            let now = Int64(clock() * 1000)
            let record = local.map {
                // The edit's own time, not the push's: the later edit wins a conflict.
                SpaceItemRecord(service: tracked.service, account: tracked.account, label: $0.info.label, comment: $0.info.comment,
                                kind: $0.info.kind.rawValue, secret: $0.secret, seq: tracked.seq + 1, writer: me, modified: $0.info.modified)
            } ?? SpaceItemRecord(service: tracked.service, account: tracked.account, secret: .empty, seq: tracked.seq + 1, writer: me, modified: now, deleted: true)
            let entry = try key.entryName(service: tracked.service, account: tracked.account)
            writes.append((position, entry, try record.sealed(name: entry, spaceID: state.spaceID, key: key),
                           tracked.entry == entry ? tracked.version : 0, record, local?.info.modified))
        }
        guard !writes.isEmpty else { return }
        let results = try engine(state.remote, root: state.root, doing: "pushing to space '\(state.name)'") { engine throws(EngineError) in
            try writes.map { write throws(EngineError) -> (Int?, KVSecret?) in
                do throws(EngineError) {
                    return (try engine.write(SpaceEngine.item(write.entry), write.fields, cas: write.cas), nil)
                } catch .checkAndSet {
                    return (nil, try engine.read(SpaceEngine.item(write.entry)))
                }
            }
        }
        var written: [String: Int] = [:], moved: [String] = []
        for (write, result) in zip(writes, results) {
            if let version = result.0 {
                let old = state.items[write.tracked].entry
                if !old.isEmpty, old != write.entry { moved.append(old) }
                state.items[write.tracked].entry = write.entry
                state.items[write.tracked].seq = write.record.seq
                state.items[write.tracked].version = version
                state.items[write.tracked].modified = write.modified
                state.items[write.tracked].deleted = write.record.deleted
                written[write.entry] = write.record.seq
                report.pushed += 1
            } else if let theirs = result.1 {
                // Another device wrote it first: settle it now; a local edit that wins is pushed next round.
                do {
                    let record = try SpaceItemRecord.opening(theirs.fields, name: write.entry, spaceID: state.spaceID, key: key)
                    // Another device's write moves past every record seen here; an older one is a replay.
                    let held = state.items[write.tracked].seq
                    guard record.seq > held else {
                        throw SpaceError.rolledBack("item entry \(write.entry) holds seq \(record.seq), not above \(held) already seen")
                    }
                    try apply(record, entry: write.entry, version: theirs.version, at: state.tracked(record.service, record.account), &state, &report)
                } catch let error as SpaceError {
                    refuse(error, &state, &report)
                }
            }
        }
        if !written.isEmpty { try record(written, dropping: moved, in: &state, writer: me) }
        if !moved.isEmpty {
            // Entries of an older generation, now written under the current one: gone from the index, then deleted.
            try? engine(state.remote, root: state.root, doing: "deleting entries of an older key") { engine throws(EngineError) in
                for entry in moved { try engine.delete(SpaceEngine.item(entry)) }
            }
        }
        state.lastPush = clock()
    }

    /// An item with access rules stays on this device (`isGuarded`): `status` counts it.
    func isHeldBack(_ tracked: SpaceState.Tracked) -> Bool {
        (try? ItemKey(service: tracked.service, account: tracked.account)).map(isGuarded) ?? true
    }

    /// Whether the local item moved since its last sync (created, changed or deleted here).
    /// An item this device took out of the space is never pending.
    static func isPending(_ tracked: SpaceState.Tracked, _ local: ItemInfo?) -> Bool {
        guard !tracked.left else { return false }
        guard let local else { return tracked.seq > 0 && !tracked.deleted }
        return tracked.seq == 0 || tracked.deleted || local.modified != tracked.modified
    }

    /// Records the entries' new seqs in the index (and drops entries `dropping`, moved to a new
    /// generation's name): read, merge, write with check-and-set, again when another device's
    /// index came first.
    /// `oldest`: the oldest key generation of the index it takes (default: the newest this
    /// device holds; a device that has just rotated the key reads the index of the one before).
    func record(_ written: [String: Int], dropping: [String] = [], in state: inout SpaceState, writer: String, oldest: Int? = nil) throws {
        let key = try state.key(state.generation)
        for _ in 0..<8 {
            let (version, fields) = try engine(state.remote, root: state.root, doing: "updating the index of space '\(state.name)'") { engine throws(EngineError) in
                (try engine.version(SpaceEngine.index), try engine.read(SpaceEngine.index)?.fields)
            }
            var index = SpaceIndex()
            if let fields {
                let generation = try SealedEntry.generation(of: fields, name: SpaceIndex.name)
                guard generation >= oldest ?? state.generation else { throw Self.olderGeneration("the index", generation, state) }
                index = try SpaceIndex.opening(fields, spaceID: state.spaceID, key: state.key(generation))
                guard index.seq >= state.indexSeq else { throw SpaceError.rolledBack("the index went back from seq \(state.indexSeq) to \(index.seq)") }
            }
            index.entries.merge(written) { max($0, $1) }
            for entry in dropping { index.entries[entry] = nil }
            index.seq = max(index.seq, state.indexSeq) + 1
            index.writer = writer
            let sealed = try index.sealed(spaceID: state.spaceID, key: key)
            let done = try engine(state.remote, root: state.root, doing: "updating the index of space '\(state.name)'") { engine throws(EngineError) -> Bool in
                do throws(EngineError) {
                    _ = try engine.write(SpaceEngine.index, sealed, cas: version)
                    return true
                } catch .checkAndSet {
                    return false
                }
            }
            if done {
                state.indexSeq = index.seq
                return
            }
        }
        throw VaultError.unavailable("the index of space '\(state.name)' kept changing under this device's writes; the next round tries again")
    }
}
