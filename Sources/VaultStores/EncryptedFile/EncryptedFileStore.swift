#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto
import VaultSystem

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
    let fileLock: VaultFileLock
    /// An adaptive mutex, not Swift's `Mutex` (a priority-inheritance futex: every contended lock
    /// is a system call): a `get` holds it only to find the sealed record.
    let state = AdaptiveLock(State())

    struct State {
        var vault: OpenVault?
        /// Changes whenever `vault` may have: opened, locked, caught up with the file, written.
        /// (Not a `didSet`: an observed property is passed `inout` as a copy, and changing that
        /// copy in place would copy the whole item table.)
        var generation: UInt64 = 0

        mutating func changed() { generation &+= 1 }
    }

    /// What tells a read that another process may have changed the file, for one `poll`; where
    /// it cannot (`unwatched`: NFS, no inotify), a `stat` of the path on every check.
    let watch: ChangeWatch

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
    static func countItems(_ bytes: [UInt8], path: String) throws -> Int {
        let envelope = try VaultFile.decodeEnvelope(bytes, path: path)
        var ids = Set(try VaultFile.decodeRecords(bytes, envelope: envelope, path: path).map(\.id))
        let entries = try bytes.withUnsafeBytes { buffer in
            try VaultJournal.read(
                UnsafeRawBufferPointer(rebasing: buffer[envelope.snapshotSize...]), start: envelope.snapshotSize,
                after: VaultFile.snapshotTag(bytes, snapshotSize: envelope.snapshotSize), dataKey: nil, path: path).entries
        }
        for entry in entries {
            switch entry {
            case .upsert(let record): ids.insert(record.id)
            case .deletion(let itemID): ids.remove(ItemID(itemID))
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
    func reencrypt(_ vault: inout OpenVault) throws {
        let newKey = try SecureRandom.secretBytes(AESGCM.keySize)
        var table = ItemTable<SealedRecord>()
        for entry in vault.table.entries {
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
}
