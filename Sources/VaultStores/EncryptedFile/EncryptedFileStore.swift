#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto

/// The store that works everywhere: one AES-256-GCM encrypted file (docs/file-format.md).
///
/// A random data key encrypts every item; scrypt(passphrase) wraps the data key. While unlocked,
/// the store holds the data key (mlocked where allowed) and the decrypted metadata; secrets stay
/// sealed until `get`. Every write takes an `flock` on `<file>.lock`, catches up with what other
/// processes wrote (only their new journal entries while the file was only appended to), then
/// appends one sealed journal entry and `fdatasync`s it, or, when the journal has outgrown the
/// snapshot, compacts: replaces the file atomically with a new snapshot. So a write's cost does not
/// grow with the vault, and concurrent writers never lose updates. A file that fails to open is
/// reported and never overwritten.
public final class EncryptedFileStore: PassphraseProtected {
    public struct Options: Sendable {
        /// scrypt cost for new vaults and new passphrases (existing files keep their own).
        public var kdfParameters: Scrypt.Parameters
        /// How long a writer waits for another process's write lock before failing with `.busy`.
        public var lockTimeout: Double
        /// A write compacts the file once its journal would outgrow both the snapshot and this many
        /// bytes (docs/file-format.md); tests lower it to compact often.
        public var compactionFloor: Int

        public init(kdfParameters: Scrypt.Parameters = .default, lockTimeout: Double = 10, compactionFloor: Int = 64 * 1024) {
            self.kdfParameters = kdfParameters
            self.lockTimeout = lockTimeout
            self.compactionFloor = compactionFloor
        }
    }

    public let path: String
    public let options: Options
    private let fileLock: VaultFileLock
    /// An adaptive mutex, not Swift's `Mutex` (a priority-inheritance futex: every contended lock
    /// is a system call): a `get` holds it only to find the sealed record.
    private let state = AdaptiveLock(State())

    private struct State {
        var vault: OpenVault?
        /// Changes whenever `vault` may have: opened, locked, caught up with the file, written.
        /// (Not a `didSet`: an observed property is passed `inout` as a copy, and changing that
        /// copy in place would copy the whole item table.)
        var generation: UInt64 = 0

        mutating func changed() { generation &+= 1 }
    }

    /// What tells a read that another process may have changed the file, for one `poll`; where
    /// it cannot (`unwatched`: NFS, no inotify), a `stat` of the path on every check.
    private let watch: ChangeWatch

    public init(path: String, options: Options = Options(), isLocalFileSystem: @escaping @Sendable (Int) -> Bool = ChangeWatch.isLocalFileSystem) {
        self.path = path
        self.options = options
        fileLock = VaultFileLock(vaultPath: path, timeout: options.lockTimeout)
        watch = ChangeWatch(directory: FileSystem.parentDirectory(of: path), file: path, isLocal: isLocalFileSystem)
    }

    public var kind: StoreKind { .file }

    /// Beside the vault file (not the write lock `<file>.lock`: a refresh holds this one across
    /// its request to the provider, while other writes go on).
    public var refreshLockPath: String? { path + ".refresh.lock" }

    /// True when the vault file exists (unlocking will open it rather than create it).
    public var exists: Bool { (try? FileStatus.of(path)) != nil }

    /// How many items the vault file holds, read without a key: the snapshot's header count,
    /// adjusted by the journal's entries (item ids are in the clear) when there is one. Nothing here
    /// is authenticated: use it for choices, not for security. nil when there is no file; -1 when
    /// there is one that cannot be read that way.
    public var headerItemCount: Int? {
        guard exists else { return nil }
        guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return -1 }
        return fd.closeAfter {
            guard let header = try? fd.read(count: VaultFileFormat.headerSize, at: 0), header.count == VaultFileFormat.headerSize,
                  Array(header[0..<VaultFileFormat.magic.count]) == VaultFileFormat.magic else { return -1 }
            let offset = VaultFileFormat.keyBlockSize
            let count = header[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let recordsLength = header[offset + 4..<offset + 12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard let size = try? fd.status().size, size >= 0 else { return -1 }
            // A journal after the snapshot, if the file is longer than the header says.
            guard let snapshotSize = VaultFile.snapshotSize(recordsLength: recordsLength, fileSize: Int(size)), snapshotSize < size else { return count }
            guard size <= Int64(VaultFileFormat.maxFileSize), let bytes = try? fd.read(count: Int(size), at: 0),
                  let counted = try? Self.countItems(bytes, path: path) else { return -1 }
            return counted
        }
    }

    /// Applies the journal's item ids to the snapshot's, without a key.
    private static func countItems(_ bytes: [UInt8], path: String) throws -> Int {
        let envelope = try VaultFile.decodeEnvelope(bytes, path: path)
        var ids = Set(try VaultFile.decodeRecords(bytes, envelope: envelope, path: path).map(\.itemID))
        let entries = try bytes.withUnsafeBytes { buffer in
            try VaultJournal.read(
                UnsafeRawBufferPointer(rebasing: buffer[envelope.snapshotSize...]), start: envelope.snapshotSize,
                after: VaultFile.snapshotTag(bytes, snapshotSize: envelope.snapshotSize), dataKey: nil, path: path).entries
        }
        for entry in entries {
            switch entry {
            case .upsert(let record): ids.insert(record.itemID)
            case .deletion(let itemID): ids.remove(itemID)
            }
        }
        return ids.count
    }

    public func status() -> StoreStatus {
        state.withLock { state in
            StoreStatus(kind: kind, isLocked: state.vault == nil, location: path, itemCount: state.vault?.table.count)
        }
    }

    // MARK: Locking

    /// Opens the vault with `passphrase`, creating it when the file does not exist yet.
    public func unlock(passphrase: SecretBytes?) throws {
        guard let passphrase else {
            throw VaultError.passphraseUnavailable("the file store needs a passphrase: set VAULT_PASSPHRASE_FILE or run 'vaultctl unlock'")
        }
        if passphrase.isEmpty { throw VaultError.invalidInput("an empty passphrase is refused") }
        try prepareDirectory()
        let opened = try fileLock.withLock(vaultPath: path) { () throws -> OpenVault in
            // Not followed: a vault path that is a symbolic link is refused (`checkFile`).
            guard let status = try AtomicFileWriter.storage("inspect", path, { try FileStatus.of(path, followSymlinks: false) }) else {
                return try create(passphrase: passphrase)
            }
            try checkFile(status)
            return try open(passphrase: passphrase)
        }
        state.withLock { state in
            state.vault = opened
            state.changed()
        }
    }

    public func lock() throws {
        state.withLock { state in
            state.vault = nil
            state.changed()
        }
    }

    public func verifyPassphrase(_ passphrase: SecretBytes) throws -> Bool {
        let keyBlock = try VaultFile.decodeEnvelope(readFile().0, path: path).keyBlock
        do {
            _ = try keyBlock.unwrapUpgrading(passphrase: passphrase)
            return true
        } catch VaultError.wrongPassphrase {
            return false
        }
    }

    public func changePassphrase(current: SecretBytes, new: SecretBytes, rekey: Bool) throws {
        try changePassphrase(current: current, new: new, parameters: nil, rekey: rekey)
    }

    /// Changes the passphrase. With `rekey` (the default) a new random data key replaces the old
    /// one and every item is re-encrypted under it, in one atomic write: whoever holds an old copy
    /// of the file and the old passphrase can decrypt nothing written after the change. Without
    /// it the data key is only re-wrapped under `new` (fast; for raising the scrypt cost, not for a
    /// passphrase that leaked). `parameters` may raise the scrypt cost. Works whether or not the
    /// store is unlocked; fails with `.wrongPassphrase` (changing nothing) when `current` is wrong.
    public func changePassphrase(current: SecretBytes, new: SecretBytes, parameters: Scrypt.Parameters? = nil, rekey: Bool = true) throws {
        if new.isEmpty { throw VaultError.invalidInput("an empty passphrase is refused") }
        try prepareDirectory()
        try state.withLock { state in
            try fileLock.withLock(vaultPath: path) {
                guard try FileStatus.of(path) != nil else {
                    throw VaultError.unavailable("there is no vault at \(path) yet: it is created by the first unlock")
                }
                var vault = try open(passphrase: current)
                if rekey { try reencrypt(&vault) }
                let newBlock = try VaultKeyBlock.wrapping(
                    dataKey: vault.dataKey, passphrase: new, parameters: parameters ?? vault.keyBlock.parameters,
                    vaultID: vault.keyBlock.vaultID)
                vault.keyBlock = newBlock
                let identity = vault.identity
                do {
                    try persist(&vault)
                } catch {
                    guard vault.identity != identity else { throw error }
                    // The new file is in place though not known to be durable: an unlocked store
                    // follows it (the old data key opens nothing in it), and the user is told that
                    // either passphrase may be the one that opens the vault.
                    if state.vault != nil {
                        state.vault = vault
                        state.changed()
                    }
                    throw VaultError.unavailable("the new passphrase is in place, but \(error); until a later write succeeds, a power loss may bring back the old one: try the new passphrase first, then the old")
                }
                if state.vault != nil {
                    state.vault = vault
                    state.changed()
                }
            }
        }
    }

    /// Replaces the data key with a fresh one and re-seals every item under it (fresh nonces;
    /// item ids kept). Items that fail to authenticate stop it: nothing is written.
    private func reencrypt(_ vault: inout OpenVault) throws {
        let newKey = try SecureRandom.secretBytes(AESGCM.keySize)
        var table = ItemTable<SealedRecord>()
        for entry in vault.table.entries.values {
            let secret: SecretBytes
            do {
                secret = try entry.payload.openSecret(vaultID: vault.keyBlock.vaultID, key: vault.dataKey)
            } catch CryptoError.authenticationFailed {
                throw VaultError.tamperedVault(path: path, detail: "the secret of \(entry.info.key) does not authenticate; the passphrase was not changed")
            }
            let record = try SealedRecord.seal(info: entry.info, secret: secret, itemID: entry.payload.itemID, vaultID: vault.keyBlock.vaultID, key: newKey)
            table.restore(entry.info, payload: record)
        }
        vault.table = table
        vault.dataKey = newKey
    }

    // MARK: Items

    /// The state lock is held only to find the sealed record; it is opened outside, so that
    /// concurrent `get`s decrypt side by side (the key stays alive while this holds it).
    public func get(_ key: ItemKey) throws -> Item {
        let (entry, vaultID, dataKey) = try withOpenVault { vault, _ in (try vault.table.entry(key), vault.keyBlock.vaultID, vault.dataKey) }
        do {
            return Item(info: entry.info, secret: try entry.payload.openSecret(vaultID: vaultID, key: dataKey))
        } catch CryptoError.authenticationFailed {
            throw VaultError.tamperedVault(path: path, detail: "the secret of \(key) does not authenticate")
        }
    }

    public func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: true)
    }

    public func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: false)
    }

    public func delete(_ key: ItemKey) throws {
        try mutate { vault in
            ((), [.deletion(key, itemID: try vault.table.entry(key).payload.itemID)])
        }
    }

    public func list(service: String?) throws -> [ItemInfo] {
        try withOpenVault { vault, _ in vault.table.list(service: service) }
    }

    public func list(service: String?, after: ItemKey?, limit: Int) throws -> [ItemInfo] {
        try withOpenVault { vault, _ in vault.table.list(service: service, after: after, limit: limit) }
    }

    private func write(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges, mustBeNew: Bool) throws -> ItemInfo {
        try ItemTable<SealedRecord>.checkSecret(secret)
        try changes.validate(for: key)
        return try mutate { vault in
            let change = try Self.seal(key, secret: secret, changes: changes, mustBeNew: mustBeNew, now: Clock.nowMilliseconds(), vault)
            guard case .upsert(let info, _) = change else { preconditionFailure("a write seals an upsert") }
            return (info, [change])
        }
    }

    /// Adds every item in one write of the file (one lock, one compaction, one fsync): for filling
    /// large vaults in tests and benchmarks. All or nothing, on disk too (a compaction is one
    /// rename): an existing key, or one given twice, fails the whole call with `.duplicate`.
    public func add(_ items: [(key: ItemKey, secret: SecretBytes, changes: ItemChanges)]) throws {
        for item in items {
            try ItemTable<SealedRecord>.checkSecret(item.secret)
            try item.changes.validate(for: item.key)
        }
        try mutate { vault in
            let now = Clock.nowMilliseconds()
            var seen = Set<ItemKey>()
            let changes = try items.map { item in
                guard seen.insert(item.key).inserted else { throw VaultError.duplicate(item.key) }
                return try Self.seal(item.key, secret: item.secret, changes: item.changes, mustBeNew: true, now: now, vault)
            }
            return ((), changes)
        }
    }

    /// The upsert a write of `key` makes (the vault is not changed yet).
    private static func seal(
        _ key: ItemKey, secret: SecretBytes, changes: ItemChanges, mustBeNew: Bool, now: Int64, _ vault: OpenVault
    ) throws -> OpenVault.Change {
        let itemID = try (vault.table.entries[key]?.payload.itemID) ?? SecureRandom.bytes(VaultFileFormat.itemIDSize)
        let info = try vault.table.metadataForWrite(key, changes: changes, mustBeNew: mustBeNew, now: now)
        let record = try SealedRecord.seal(info: info, secret: secret, itemID: itemID, vaultID: vault.keyBlock.vaultID, key: vault.dataKey)
        return .upsert(info, record)
    }

    // MARK: Opening, creating, persisting

    /// Changes with every change of the items: this store's writes, lock and unlock, and what it
    /// reads of other processes' writes (the read's check is made here).
    public func itemsGeneration() throws -> UInt64? {
        try withOpenVault { _, generation in generation }
    }

    /// `body` with the open vault and its generation, caught up first with other processes'
    /// writes when this read checks for them (`StoreCheckScope`: outside a request every read
    /// does, inside one the first). The check is one `poll` of the directory's watch, made
    /// before the lock is taken (or, where the directory cannot be watched, one `fstatat`); while
    /// nothing changed, the lock is held only while `body` runs. When the watch has news, it is
    /// drained under the lock before the file is looked at (`ChangeWatch`).
    private func withOpenVault<R>(_ body: (borrowing OpenVault, UInt64) throws -> R) throws -> R {
        let checking = StoreCheckScope.mustCheck(self)
        let news = checking ? watch.news() : .quiet
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
    private func current(_ openState: inout OpenVault?) throws -> OpenVault {
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
    private func mutate<R: Sendable>(_ body: (OpenVault) throws -> (R, [OpenVault.Change])) throws -> R {
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

    private func change<R: Sendable>(_ openState: inout OpenVault?, _ body: (OpenVault) throws -> (R, [OpenVault.Change])) throws -> R {
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
    private struct StaleView: Error {}

    /// Appends one change as a journal entry when the file has a journal and it stays within
    /// bounds; otherwise compacts. `vault` is changed only after the write is durable.
    private func commit(_ changes: [OpenVault.Change], to vault: inout OpenVault) throws {
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

    /// The file at the path, opened with `access`, and its status; `StaleView` unless it is the
    /// file this process last read or wrote (`known`) and still ends as it did then (`journal`).
    /// Its identity comes from the descriptor opened here, under the lock: on NFS an open
    /// revalidates what a `stat` may have served from its attribute cache. A file that is not
    /// the one last seen is read whole and the change made again (`mutate`).
    private func openAsRead(_ access: Int32, known: FileStatus, journal: OpenVault.Journal?) throws -> (fd: FileDescriptor, status: FileStatus) {
        let fd = try AtomicFileWriter.storage("open", path) { try FileDescriptor.open(path, access | O_NOFOLLOW | O_NONBLOCK) }
        do {
            let status = try AtomicFileWriter.storage("inspect", path) { try fd.status() }
            guard status.sameFile(as: known) else { throw StaleView() }
            if let journal {
                guard try AtomicFileWriter.storage("read", path, { try Self.endsAsRead(fd, journal) }) else { throw StaleView() }
            }
            return (fd, status)
        } catch {
            fd.close()
            throw error
        }
    }

    /// Cuts a torn last entry if there is one, writes `entry` at the journal's end and
    /// `fdatasync`s. On failure the file is cut back to where it was (best effort: an entry left
    /// behind was never acknowledged, and a torn one is ignored by every reader).
    private func append(_ entry: [UInt8], tag: [UInt8], to vault: inout OpenVault) throws {
        guard var journal = vault.journal, let known = vault.identity else { preconditionFailure("appending to a file without a journal") }
        let end = journal.position.end
        let (fd, status) = try openAsRead(O_RDWR, known: known, journal: journal)
        try fd.closeAfter {
            do {
                if status.size != Int64(end) { try fd.truncate(to: end) }
                try fd.write(entry, at: end)
                try fd.syncData()
            } catch let error as Errno {
                try? fd.truncate(to: end)
                throw VaultError.storage(operation: "write", path: path, errno: error)
            }
            journal.position = VaultJournal.Position(end: end + entry.count, lastTag: tag)
            vault.journal = journal
            vault.identity = try AtomicFileWriter.storage("inspect", path) { try fd.status() }
        }
    }

    /// Whether the file open on `fd` still holds, where this process last saw them, the
    /// snapshot's trailer (MAC and checksum) and the last journal entry's tag: about 76 bytes read.
    private static func endsAsRead(_ fd: FileDescriptor, _ journal: OpenVault.Journal) throws -> Bool {
        guard try snapshotUnchanged(fd, journal) else { return false }
        guard journal.position.end > journal.snapshotSize else { return true }  // the chain starts at the snapshot's tag
        let tagStart = journal.position.end - SHA256.digestSize - AESGCM.tagSize
        return try fd.read(count: AESGCM.tagSize, at: tagStart) == journal.position.lastTag
    }

    /// Whether the file open on `fd` still holds this process's snapshot trailer (MAC and
    /// checksum) where it last saw it.
    private static func snapshotUnchanged(_ fd: FileDescriptor, _ journal: OpenVault.Journal) throws -> Bool {
        let trailerStart = journal.snapshotSize - VaultFileFormat.trailerSize
        return try fd.read(count: VaultFileFormat.trailerSize, at: trailerStart) == journal.snapshotTrailer
    }

    /// For tests: takes the file as it is now for the one last read, without reading it, as a
    /// `stat` that cannot tell two files apart would (`StaleView`).
    func assumeFileUnchanged() throws {
        let status = try FileStatus.of(path, followSymlinks: false)
        state.withLock { state in
            state.vault?.identity = status
            state.changed()
        }
    }

    private var lockedError: VaultError { .locked("run 'vaultctl unlock' (or set VAULT_PASSPHRASE_FILE for vaultd)") }

    private func create(passphrase: SecretBytes) throws -> OpenVault {
        let dataKey = try SecureRandom.secretBytes(AESGCM.keySize)
        let vaultID = try SecureRandom.bytes(VaultFileFormat.vaultIDSize)
        let keyBlock = try VaultKeyBlock.wrapping(dataKey: dataKey, passphrase: passphrase, parameters: options.kdfParameters, vaultID: vaultID)
        let bytes = try VaultFile(keyBlock: keyBlock, records: []).encoded(dataKey: dataKey)
        // link(2) rather than rename(2): if a vault appeared meanwhile, it is never replaced.
        try AtomicFileWriter.write(bytes, to: path, createOnly: true)
        return OpenVault(
            dataKey: dataKey, keyBlock: keyBlock, table: ItemTable(), keysByID: [:], identity: try FileStatus.of(path),
            journal: OpenVault.Journal(snapshot: bytes))
    }

    /// Opens the file with the passphrase. A version 1 file's key block is re-wrapped for version 2
    /// here, where the passphrase is at hand, and the file becomes version 2 at the next write.
    private func open(passphrase: SecretBytes) throws -> OpenVault {
        let (bytes, identity) = try readFile()
        var current: VaultKeyBlock?
        var vault = try OpenVault.decode(bytes, identity: identity, path: path) { keyBlock in
            let unwrapped = try keyBlock.unwrapUpgrading(passphrase: passphrase)
            current = unwrapped.current
            return unwrapped.dataKey
        }
        vault.keyBlock = current ?? vault.keyBlock
        return vault
    }

    /// Catches up when another process wrote since we last read or wrote: only the new journal
    /// entries when the same file grew with its snapshot unchanged, else the whole file. The data
    /// key survives a passphrase change elsewhere (only its wrapping changes), so no passphrase is needed.
    private func refreshIfChanged(_ vault: inout OpenVault) throws {
        guard let current = try AtomicFileWriter.storage("inspect", path, { try FileStatus.of(path, followSymlinks: false) }) else {
            throw VaultError.unavailable("vault file \(path) was removed while in use; restore it, or lock and unlock to start a new vault")
        }
        if let known = vault.identity, known.sameFile(as: current) { return }
        try checkFile(current)
        if let known = vault.identity, known.device == current.device, known.inode == current.inode, current.size > known.size,
           (try? readAppended(&vault)) == true {
            return
        }
        let (bytes, identity) = try readFile()
        var fresh = try OpenVault.decode(bytes, identity: identity, path: path) { keyBlock in
            guard keyBlock.vaultID == vault.keyBlock.vaultID else {
                throw VaultError.tamperedVault(path: path, detail: "it was replaced by a different vault; lock and unlock with that vault's passphrase")
            }
            return vault.dataKey
        }
        fresh.keyBlock = try currentKeyBlock(fresh.keyBlock, known: vault.keyBlock)
        vault = fresh
    }

    /// Reads and applies what was appended to the file since `vault` last saw it. False (and
    /// perhaps half applied: the caller then reads the whole file) when the file is not the same
    /// snapshot grown, or what follows does not continue the chain.
    private func readAppended(_ vault: inout OpenVault) throws -> Bool {
        guard let journal = vault.journal, let known = vault.identity else { return false }
        let fd = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        return try fd.closeAfter {
            let status = try fd.status()
            guard status.device == known.device, status.inode == known.inode, status.size > known.size,
                  status.size <= Int64(VaultFileFormat.maxFileSize) else { return false }
            try checkFile(status)
            // The last entry read must still be there too: one cut after a failed sync and
            // overwritten by a longer one would otherwise pass for the same file grown.
            guard try Self.endsAsRead(fd, journal) else { return false }
            let appended = try fd.read(count: Int(status.size) - journal.position.end, at: journal.position.end)
            try vault.readJournal(appended, path: path)
            vault.identity = status
            return true
        }
    }

    /// The key block to write after reloading a file that heads with `found`. A version 1 block
    /// (an old copy put back, or an old vault's write) cannot head a version 2 file without the
    /// passphrase: the upgraded block made at unlock serves while it wraps the same key for the same
    /// passphrase (same salt and cost); otherwise the store must be unlocked again.
    private func currentKeyBlock(_ found: VaultKeyBlock, known: VaultKeyBlock) throws -> VaultKeyBlock {
        if found.version == VaultFileFormat.version { return found }
        guard found.salt == known.salt, found.parameters == known.parameters else {
            throw VaultError.locked("the vault file was replaced by one in an older format with another passphrase; run 'vaultctl unlock' to open and upgrade it")
        }
        return known
    }

    /// Compacts: writes the items as a new snapshot with an empty journal, atomically, and records
    /// the new file's identity. Call under the file lock. When the write fails after the new file
    /// took the old one's place (flushing the directory failed), `vault` follows the file on disk
    /// (its identity changes) before the error is thrown.
    private func persist(_ vault: inout OpenVault) throws {
        let records = vault.table.entries.values.sorted { $0.info.key < $1.info.key }.map(\.payload)
        let bytes = try VaultFile(keyBlock: vault.keyBlock, records: records).encoded(dataKey: vault.dataKey)
        AtomicFileWriter.removeLeftovers(besides: path)
        do {
            try AtomicFileWriter.write(bytes, to: path)
        } catch {
            if let (onDisk, status) = try? readFile(), onDisk == bytes {
                vault.identity = status
                vault.journal = OpenVault.Journal(snapshot: bytes)
            }
            throw error
        }
        vault.identity = try AtomicFileWriter.storage("inspect", path) { try FileStatus.of(path) }
        vault.journal = OpenVault.Journal(snapshot: bytes)
    }

    private func readFile() throws -> ([UInt8], FileStatus) {
        let fd = try AtomicFileWriter.storage("open", path) {
            do {
                // O_NONBLOCK: a FIFO put in its place is refused by `checkFile`, not waited on.
                return try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
            } catch let error as Errno where error.rawValue == ELOOP {
                throw symbolicLinkError
            }
        }
        return try fd.closeAfter {
            let status = try AtomicFileWriter.storage("inspect", path) { try fd.status() }
            try checkFile(status)
            guard let bytes = try AtomicFileWriter.storage("read", path, { try fd.readAll(limit: VaultFileFormat.maxFileSize) }) else {
                throw VaultError.corruptVault(path: path, detail: "larger than \(VaultFileFormat.maxFileSize >> 20) MiB")
            }
            return (bytes, status)
        }
    }

    private func checkFile(_ status: FileStatus) throws {
        if status.isSymbolicLink { throw symbolicLinkError }
        guard status.isRegularFile else { throw VaultError.notAVault(path: path) }
        guard status.owner == FileSystem.currentUserID else {
            throw VaultError.insecurePermissions(path: path, detail: "it is owned by uid \(status.owner), not by you (uid \(FileSystem.currentUserID))")
        }
        guard status.permissions & 0o077 == 0 else {
            throw VaultError.insecurePermissions(
                path: path, detail: "others can access it (mode \(String(status.permissions, radix: 8))); run 'chmod 600 \(path)'")
        }
    }

    /// The vault file is never used through a symbolic link (its writes open it with O_NOFOLLOW,
    /// and its replacement by a compaction would replace the link, not its target).
    private var symbolicLinkError: VaultError {
        let target = realpath(path, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return .insecurePermissions(
            path: path,
            detail: "it is a symbolic link\(target.map { " to \($0)" } ?? ""), and vault never uses a vault file through one; "
                + "set VAULT_FILE (or 'file' in the configuration file) to the real path\(target.map { ", \($0)" } ?? "") instead")
    }

    /// Creates the vault's directory 0700 when missing; refuses one that others could write to.
    private func prepareDirectory() throws {
        let directory = FileSystem.parentDirectory(of: path)
        try AtomicFileWriter.storage("create the directory of", path) { try FileSystem.createDirectories(directory, mode: 0o700) }
        guard let status = try AtomicFileWriter.storage("inspect the directory of", path, { try FileStatus.of(directory) }) else {
            throw VaultError.storage(operation: "create the directory of", path: path, errno: .noSuchFile)
        }
        guard status.owner == FileSystem.currentUserID else {
            throw VaultError.insecurePermissions(path: directory, detail: "the directory is owned by uid \(status.owner), not by you")
        }
        guard status.permissions & 0o022 == 0 else {
            throw VaultError.insecurePermissions(
                path: directory, detail: "others can write to the directory (mode \(String(status.permissions, radix: 8))); run 'chmod 700 \(directory)'")
        }
    }
}
