#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto
import VaultSystem

/// The open vault in memory: brought up to date with the file once per request, changed under the
/// file lock, committed as journal entries or a compaction (`EncryptedFileStore+File`).
extension EncryptedFileStore {
    /// Changes with every change of the items: this store's writes, lock and unlock, and what it
    /// reads of other processes' writes (the read's check is made here).
    public func itemsGeneration() throws -> UInt64? {
        try withOpenVault { _, generation in generation }
    }

    /// The generation, without looking for other processes' writes (`CaughtUpFileStore`).
    func itemsGeneration(looking: Bool) throws -> UInt64? {
        try withOpenVault(looking: looking) { _, generation in generation }
    }

    /// `body` with the open vault and its generation, caught up first with other processes'
    /// writes when `looking` (every read does, but those of a request after its first:
    /// `StoreReadView`, `CaughtUpFileStore`). The check is one `poll` of the directory's watch, made
    /// before the lock is taken (or, where the directory cannot be watched, one `fstatat`); while
    /// nothing changed, the lock is held only while `body` runs. When the watch has news, it is
    /// drained under the lock before the file is looked at (`ChangeWatch`).
    func withOpenVault<R>(looking: Bool = true, _ body: (borrowing OpenVault, UInt64) throws -> R) throws -> R {
        let news = looking ? watch.news() : .quiet
        let seen = news == .unwatched ? try? FileStatus.of(path, followSymlinks: false) : nil
        return try state.withLock { state in
            // The vault lent to `body` where it is held, not bound to a local first: a copy of
            // it (its key, tables and journal) cost a read about 700 instructions of retains and
            // releases (docs/performance.md, part I).
            if let known = state.vault?.identity, news == .quiet || seen.map({ known.sameFile(as: $0) }) == true {
                return try body(state.vault!, state.generation)
            }
            if news == .pending { watch.rearm() }
            let caughtUp = Result { try current(&state.vault) }
            state.changed()
            return try body(caughtUp.get(), state.generation)
        }
    }

    /// The open vault, brought up to date first with what other processes wrote. When another
    /// process re-keyed it (a passphrase change), the key held here no longer opens it: the store
    /// locks and says so, rather than calling the file tampered.
    func current(_ openState: inout OpenVault?) throws -> OpenVault {
        guard var vault = openState else { throw lockedError }
        openState = nil  // `vault` alone holds the items, so catching up changes them in place
        do {
            try refreshIfChanged(&vault)
        } catch {
            // Perhaps half caught up: the next use reads the whole file again before serving anything.
            vault.identity = nil
            openState = vault
            guard let error = error as? VaultError else { throw error }
            if case .locked = error { openState = nil }
            if case .tamperedVault = error, let keyBlock = try? VaultFile.decodeEnvelope(readFile().0, path: path).keyBlock,
               keyBlock.vaultID == vault.keyBlock.vaultID, keyBlock.wrappedKey != vault.keyBlock.wrappedKey {
                openState = nil
                throw VaultError.locked("the vault's passphrase was changed by another program, which gave it a new key; run 'vaultctl unlock' with the new passphrase")
            }
            throw error
        }
        openState = vault
        return vault
    }

    /// Runs a change under the inter-process lock against the newest file, then writes it: one
    /// journal entry, or a compaction. The in-memory state changes only once the write is durable.
    /// When the file turns out not to end as last read (`StaleView`), it is read whole and the
    /// change made again against what it holds.
    func mutate<R: Sendable>(_ body: (OpenVault) throws -> (R, [OpenVault.Change])) throws -> R {
        try state.withLock { state in
            defer { state.changed() }
            return try fileLock.withLock(vaultPath: path) {
                do {
                    return try change(&state.vault, body)
                } catch is StaleView {
                    state.vault?.identity = nil
                    do {
                        return try change(&state.vault, body)
                    } catch is StaleView {
                        throw VaultError.unavailable("the vault file \(path) changed while it was being written, outside vault's lock; retry")
                    }
                }
            }
        }
    }

    func change<R: Sendable>(_ openState: inout OpenVault?, _ body: (OpenVault) throws -> (R, [OpenVault.Change])) throws -> R {
        _ = try current(&openState)
        guard var vault = openState else { throw lockedError }
        openState = nil  // changed in place below
        defer { openState = vault }
        let (result, changes) = try body(vault)
        do {
            try commit(changes, to: &vault)
        } catch {
            // What this process knows of the file may be off by what failed after its write was
            // durable (an entry written, its `fstat` failing): the next use reads it whole.
            vault.identity = nil
            throw error
        }
        return result
    }

    /// The file does not end with the snapshot trailer and last entry this process read, though
    /// `stat` saw the same file: another process rewrote it into one with the same identity (a
    /// compaction that got the same inode, size and times). Appending would chain to a tag the
    /// file no longer has, and every reader would then reject the file.
    struct StaleView: Error {}

    /// Appends one change as a journal entry when the file has a journal and it stays within
    /// bounds; otherwise compacts. `vault` is changed only after the write is durable.
    func commit(_ changes: [OpenVault.Change], to vault: inout OpenVault) throws {
        if changes.count == 1, let journal = vault.journal, vault.identity != nil {
            let (entry, tag) = try VaultJournal.encode(changes[0].entry, after: journal.position.lastTag, dataKey: vault.dataKey)
            if journal.length + entry.count <= max(journal.snapshotSize, options.compactionFloor) {
                try append(entry, tag: tag, to: &vault)
                try vault.apply(changes[0], path: path)
                return
            }
        }
        // A compaction writes the whole table: it must be the table of the file as it is now,
        // or another process's acknowledged write would be dropped with the file it replaces.
        if let known = vault.identity { try openAsRead(O_RDONLY, known: known, journal: vault.journal).fd.close() }
        var updated = vault
        for change in changes { try updated.apply(change, path: path) }
        try persist(&updated)
        vault = updated
    }
}
