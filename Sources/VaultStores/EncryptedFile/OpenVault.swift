import VaultCore
import VaultCrypto
import VaultSystem

/// What an unlocked `EncryptedFileStore` holds: the data key, the key block to write, the items
/// (metadata decrypted, secrets sealed), and where the file stood when last read or written, so
/// that the next read of it can start there.
struct OpenVault: Sendable {
    /// A change to one item, as a write makes it and a journal entry records it.
    enum Change: Sendable {
        case upsert(ItemInfo, SealedRecord)
        case deletion(ItemKey, itemID: [UInt8])

        var entry: VaultJournal.Entry {
            switch self {
            case .upsert(_, let record): .upsert(record)
            case .deletion(_, let itemID): .deletion(itemID: itemID)
            }
        }
    }

    /// A version 2 file's snapshot and how far its journal has been read.
    struct Journal: Sendable, Equatable {
        var snapshotSize: Int
        /// The snapshot's MAC and checksum: unchanged while the file is only appended to.
        var snapshotTrailer: [UInt8]
        var position: VaultJournal.Position

        var length: Int { position.end - snapshotSize }

        /// At the start of an empty journal after the snapshot that begins `bytes`.
        init(snapshot bytes: [UInt8], size: Int? = nil) {
            snapshotSize = size ?? bytes.count
            snapshotTrailer = Array(bytes[(snapshotSize - VaultFileFormat.trailerSize)..<snapshotSize])
            position = VaultJournal.Position(end: snapshotSize, lastTag: VaultFile.snapshotTag(bytes, snapshotSize: snapshotSize))
        }
    }

    var dataKey: SecretBytes
    var keyBlock: VaultKeyBlock
    var table: ItemTable<SealedRecord>
    var keysByID: [ItemID: ItemKey]
    /// The file as last read or written, to notice when another process changes it.
    var identity: FileStatus?
    /// nil while the file is version 1, which has no journal: the next write compacts it.
    var journal: Journal?

    /// Decodes a whole file: the snapshot (authenticated under the key `unwrap` returns), then the
    /// journal. The key block is the file's; the caller decides which one to write with.
    static func decode(
        _ bytes: [UInt8], identity: FileStatus?, path: String, unwrap: (VaultKeyBlock) throws -> SecretBytes
    ) throws -> OpenVault {
        let (file, dataKey, snapshotSize) = try VaultFile.open(bytes, path: path, unwrap: unwrap)
        var vault = OpenVault(dataKey: dataKey, keyBlock: file.keyBlock, table: ItemTable(), keysByID: [:], identity: identity, journal: nil)
        let version = file.keyBlock.version
        vault.table.reserveCapacity(file.records.count)
        vault.keysByID.reserveCapacity(file.records.count)
        for record in file.records {
            var record = record
            let info = try vault.openMetadata(record, version: version, path: path)
            if version != VaultFileFormat.version {
                // Held (and written next) in the current layout; the secret's box is the same in both.
                record.metadata = try SealedRecord.sealMetadata(info, itemID: record.itemID, vaultID: file.keyBlock.vaultID, key: dataKey)
            }
            guard vault.keysByID[record.id] == nil, vault.table[info.key] == nil else {
                throw VaultError.corruptVault(path: path, detail: "an item appears twice")
            }
            vault.keysByID[record.id] = info.key
            vault.table.restore(info, payload: record)
        }
        guard version >= 2 else { return vault }
        vault.journal = Journal(snapshot: bytes, size: snapshotSize)
        try vault.readJournal(Array(bytes[snapshotSize...]), path: path)
        return vault
    }

    /// Applies the journal entries in `bytes`, which start where the journal was last read.
    mutating func readJournal(_ bytes: [UInt8], path: String) throws {
        guard var journal else { return }
        let (entries, position) = try bytes.withUnsafeBytes { buffer in
            try VaultJournal.read(buffer, start: journal.position.end, after: journal.position.lastTag, dataKey: dataKey, path: path)
        }
        for entry in entries {
            switch entry {
            case .upsert(let record):
                try apply(.upsert(try openMetadata(record, version: VaultFileFormat.version, path: path), record), path: path)
            case .deletion(let itemID):
                guard let key = keysByID[ItemID(itemID)] else {
                    throw VaultError.corruptVault(path: path, detail: "the journal deletes an item the vault does not hold")
                }
                try apply(.deletion(key, itemID: itemID), path: path)
            }
        }
        journal.position = position
        self.journal = journal
    }

    /// Applies one change; a change that would leave two items with one id or one key is damage.
    mutating func apply(_ change: Change, path: String) throws {
        switch change {
        case .upsert(let info, let record):
            let id = record.id
            if let other = table[info.key], other.payload.id != id {
                throw VaultError.corruptVault(path: path, detail: "two items have the same name")
            }
            if let old = keysByID[id], old != info.key { _ = try table.remove(old) }
            keysByID[id] = info.key
            table.restore(info, payload: record)
        case .deletion(let key, let itemID):
            keysByID[ItemID(itemID)] = nil
            _ = try table.remove(key)
        }
    }

    private func openMetadata(_ record: SealedRecord, version: UInt16, path: String) throws -> ItemInfo {
        do {
            return try record.openMetadata(version: version, vaultID: keyBlock.vaultID, key: dataKey)
        } catch CryptoError.authenticationFailed {
            throw VaultError.tamperedVault(path: path, detail: "an item's metadata does not authenticate")
        } catch let error as ByteReader.Error {
            throw VaultError.corruptVault(path: path, detail: error.description)
        }
    }
}
