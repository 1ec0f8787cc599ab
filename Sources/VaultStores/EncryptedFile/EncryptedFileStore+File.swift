#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto
import VaultSystem

/// The vault file itself: opened without following links, appended to and synced, created,
/// re-read when another process changed it, compacted atomically, checked before it is trusted.
extension EncryptedFileStore {
    /// The file at the path, opened with `access`, and its status; `StaleView` unless it is the
    /// file this process last read or wrote (`known`) and still ends as it did then (`journal`).
    /// Its identity comes from the descriptor opened here, under the lock: on NFS an open
    /// revalidates what a `stat` may have served from its attribute cache. A file that is not
    /// the one last seen is read whole and the change made again (`mutate`).
    func openAsRead(_ access: Int32, known: FileStatus, journal: OpenVault.Journal?) throws -> (fd: FileDescriptor, status: FileStatus) {
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
    func append(_ entry: [UInt8], tag: [UInt8], to vault: inout OpenVault) throws {
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
    static func endsAsRead(_ fd: FileDescriptor, _ journal: OpenVault.Journal) throws -> Bool {
        guard try snapshotUnchanged(fd, journal) else { return false }
        guard journal.position.end > journal.snapshotSize else { return true }  // the chain starts at the snapshot's tag
        let tagStart = journal.position.end - SHA256.digestSize - AESGCM.tagSize
        return try fd.read(count: AESGCM.tagSize, at: tagStart) == journal.position.lastTag
    }

    /// Whether the file open on `fd` still holds this process's snapshot trailer (MAC and
    /// checksum) where it last saw it.
    static func snapshotUnchanged(_ fd: FileDescriptor, _ journal: OpenVault.Journal) throws -> Bool {
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

    var lockedError: VaultError { .locked("run 'vaultctl unlock' (or set VAULT_PASSPHRASE_FILE for vaultd)") }

    func create(passphrase: SecretBytes) throws -> OpenVault {
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
    func open(passphrase: SecretBytes) throws -> OpenVault {
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
    func refreshIfChanged(_ vault: inout OpenVault) throws {
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
    func readAppended(_ vault: inout OpenVault) throws -> Bool {
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
    func currentKeyBlock(_ found: VaultKeyBlock, known: VaultKeyBlock) throws -> VaultKeyBlock {
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
    func persist(_ vault: inout OpenVault) throws {
        let records = vault.table.entries.sorted { $0.info.key < $1.info.key }.map(\.payload)
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

    func readFile() throws -> ([UInt8], FileStatus) {
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

    func checkFile(_ status: FileStatus) throws {
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
    var symbolicLinkError: VaultError {
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
    func prepareDirectory() throws {
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
