import VaultCore
import VaultCrypto
import VaultStores

/// The vault file as vaultd reads it: magic, version, lengths, key block, records and journal.
/// The checksums and the snapshot MAC are repaired under a fixed data key before parsing, so
/// mutations reach the parsers behind them. A snapshot that opens is written again and opens to
/// the same key block and records; journal entries that read are sealed again in a chain and
/// read back the same under the key.
enum VaultFileTarget: FuzzTarget {
    static let name = "vault-file"
    static let maxLength = 8192
    static let dataKey = SecretBytes([UInt8](repeating: 0x5A, count: AESGCM.keySize))
    /// A fixed nonce keeps every run of an input the same (a fuzzer replays inputs).
    static let nonce = [UInt8](repeating: 0x01, count: AESGCM.nonceSize)

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        _ = try? VaultFile.decodeEnvelope(input, path: "/v")
        guard let (bytes, snapshotSize) = repaired(input) else { return }
        guard let opened = try? VaultFile.open(bytes, path: "/v", unwrap: { _ in dataKey }) else { return }
        if opened.file.keyBlock.version == VaultFileFormat.version {
            guard let written = try? opened.file.encoded(dataKey: dataKey),
                  let again = try? VaultFile.open(written, path: "/v", unwrap: { _ in dataKey }) else {
                throw FuzzFinding("a snapshot that opened, written again, does not open")
            }
            try FuzzFinding.check(again.file.keyBlock.encoded() == opened.file.keyBlock.encoded(), "a rewritten snapshot has another key block")
            try FuzzFinding.check(again.file.records.map(fields) == opened.file.records.map(fields), "a rewritten snapshot has other records")
        }
        let start = VaultFile.snapshotTag(bytes, snapshotSize: snapshotSize)
        let journal = bytes.withUnsafeBytes { buffer in
            try? VaultJournal.read(UnsafeRawBufferPointer(rebasing: buffer[snapshotSize...]), start: snapshotSize, after: start, dataKey: nil, path: "/v")
        }
        guard let entries = journal?.entries, !entries.isEmpty else { return }
        var sealed: [UInt8] = []
        var tag = start
        for entry in entries {
            guard let (entryBytes, entryTag) = try? VaultJournal.encode(entry, after: tag, dataKey: dataKey) else {
                throw FuzzFinding("a journal entry that was read cannot be sealed again")
            }
            sealed += entryBytes
            tag = entryTag
        }
        let reread = sealed.withUnsafeBytes { try? VaultJournal.read($0, start: 0, after: start, dataKey: dataKey, path: "/v") }
        guard let reread else { throw FuzzFinding("journal entries sealed again in a chain do not read under the key") }
        try FuzzFinding.check(reread.entries.map(fields) == entries.map(fields) && reread.position.end == sealed.count && reread.position.lastTag == tag,
                              "journal entries sealed again read differently")
    }

    /// `input` with its snapshot checksum and MAC, and each whole journal entry's checksum,
    /// recomputed; nil when its lengths describe no snapshot.
    static func repaired(_ input: [UInt8]) -> ([UInt8], Int)? {
        guard input.count >= VaultFileFormat.headerSize + VaultFileFormat.trailerSize else { return nil }
        var bytes = input
        var recordsLength: UInt64 = 0
        for index in 0..<8 { recordsLength = recordsLength << 8 | UInt64(bytes[VaultFileFormat.keyBlockSize + 4 + index]) }
        guard let snapshotSize = VaultFile.snapshotSize(recordsLength: recordsLength, fileSize: bytes.count) else { return nil }
        let version = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
        let macStart = snapshotSize - VaultFileFormat.trailerSize
        guard let mac = try? AESGCM.seal([], key: dataKey, authenticating: VaultFileFormat.fileContext(version: version) + Array(bytes[0..<macStart]), nonce: nonce) else {
            return nil
        }
        bytes.replaceSubrange(macStart..<(macStart + AESGCM.nonceSize + AESGCM.tagSize), with: mac.nonce + mac.tag)
        let checksumStart = snapshotSize - SHA256.digestSize
        guard let checksum = try? SHA256.hash(Array(bytes[0..<checksumStart])) else { return nil }
        bytes.replaceSubrange(checksumStart..<snapshotSize, with: checksum)
        var offset = snapshotSize
        while bytes.count - offset >= VaultJournal.headerSize {
            var length: UInt32 = 0, check: UInt32 = 0
            for index in 0..<4 {
                length = length << 8 | UInt32(bytes[offset + index])
                check = check << 8 | UInt32(bytes[offset + 4 + index])
            }
            let size = VaultJournal.headerSize + Int(length) + VaultJournal.trailerSize
            guard check == ~length, length <= VaultJournal.maxBodySize, size <= bytes.count - offset else { break }
            let end = offset + size
            guard let sum = try? SHA256.hash(Array(bytes[offset..<(end - SHA256.digestSize)])) else { return nil }
            bytes.replaceSubrange((end - SHA256.digestSize)..<end, with: sum)
            offset = end
        }
        return (bytes, snapshotSize)
    }

    static func fields(_ record: SealedRecord) -> [[UInt8]] {
        [record.itemID, record.metadata.nonce, record.metadata.ciphertext, record.metadata.tag, record.secret.nonce, record.secret.ciphertext, record.secret.tag]
    }

    static func fields(_ entry: VaultJournal.Entry) -> [[UInt8]] {
        switch entry {
        case .upsert(let record): [[1]] + fields(record)
        case .deletion(let itemID): [[2], itemID]
        }
    }
}
