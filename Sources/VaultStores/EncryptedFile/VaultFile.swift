import VaultCore
import VaultCrypto

/// A decoded vault file's snapshot: the key block and the sealed records, in file order.
/// `open` parses and authenticates a snapshot; `encoded` writes one (in the current version,
/// whatever version `keyBlock` was read with: a version 1 block must be upgraded first).
package struct VaultFile: Sendable {
    package var keyBlock: VaultKeyBlock
    package var records: [SealedRecord]

    /// Serializes with a fresh snapshot MAC under `dataKey` and a checksum.
    package func encoded(dataKey: SecretBytes) throws -> [UInt8] {
        precondition(keyBlock.version == VaultFileFormat.version, "a key block of an older version must be re-wrapped before writing")
        var writer = ByteWriter(capacity: VaultFileFormat.headerSize + records.count * 128 + VaultFileFormat.trailerSize)
        writer.append(raw: keyBlock.encoded())
        var body = ByteWriter(capacity: records.count * 128)
        for record in records { Self.appendRecord(record, to: &body) }
        writer.append(UInt32(records.count))
        writer.append(UInt64(body.bytes.count))
        writer.append(raw: body.bytes)
        let mac = try AESGCM.seal([], key: dataKey, authenticating: VaultFileFormat.fileContext(version: keyBlock.version) + writer.bytes)
        writer.append(raw: mac.nonce)
        writer.append(raw: mac.tag)
        writer.append(raw: try SHA256.hash(writer.bytes))
        return writer.bytes
    }

    /// What can be read and checked without a key: magic, version, checksum, lengths, key block.
    package struct Envelope {
        var keyBlock: VaultKeyBlock
        var recordCount: Int
        /// Where the snapshot ends and the journal (version 2) begins.
        var snapshotSize: Int
    }

    /// Parses and authenticates a snapshot: envelope, then the snapshot MAC under the data key
    /// `unwrap` returns, then the records. Records are parsed only once the MAC has verified, so
    /// any alteration past the key block is an authentication failure, not a parse error.
    /// Bytes past the snapshot (the journal) are left to the caller.
    package static func open(
        _ bytes: [UInt8], path: String, unwrap: (VaultKeyBlock) throws -> SecretBytes
    ) throws -> (file: VaultFile, dataKey: SecretBytes, snapshotSize: Int) {
        let envelope = try decodeEnvelope(bytes, path: path)
        let dataKey = try unwrap(envelope.keyBlock)
        try verify(bytes, envelope: envelope, dataKey: dataKey, path: path)
        let records = try decodeRecords(bytes, envelope: envelope, path: path)
        return (VaultFile(keyBlock: envelope.keyBlock, records: records), dataKey, envelope.snapshotSize)
    }

    /// The snapshot MAC's tag, which starts the journal's chain.
    package static func snapshotTag(_ bytes: [UInt8], snapshotSize: Int) -> [UInt8] {
        let tagStart = snapshotSize - VaultFileFormat.trailerSize + AESGCM.nonceSize
        return Array(bytes[tagStart..<tagStart + AESGCM.tagSize])
    }

    /// Checks magic, version, checksum and lengths, in that order, so each kind of damage gets its
    /// own error, and decodes the key block. Nothing here needs a key.
    package static func decodeEnvelope(_ bytes: [UInt8], path: String) throws -> Envelope {
        try bytes.withUnsafeBytes { bytes in
            let magic = VaultFileFormat.magic
            if bytes.isEmpty { throw VaultError.corruptVault(path: path, detail: "the file is empty (truncated)") }
            let prefix = min(bytes.count, magic.count)
            guard Array(bytes[0..<prefix]) == Array(magic[0..<prefix]) else { throw VaultError.notAVault(path: path) }
            if bytes.count < magic.count + 2 { throw VaultError.corruptVault(path: path, detail: "truncated to \(bytes.count) bytes") }
            let version = UInt16(bytes[8]) << 8 | UInt16(bytes[9])
            if version > VaultFileFormat.version {
                throw VaultError.unsupportedVersion(path: path, found: Int(version), supported: Int(VaultFileFormat.version))
            }
            guard version >= VaultFileFormat.oldestReadableVersion else {
                throw VaultError.corruptVault(path: path, detail: "format version \(version) does not exist")
            }
            let minimum = VaultFileFormat.headerSize + VaultFileFormat.trailerSize
            if bytes.count < minimum {
                throw VaultError.corruptVault(path: path, detail: "truncated: \(bytes.count) bytes, a vault has at least \(minimum)")
            }
            var reader = ByteReader(bytes, offset: VaultFileFormat.keyBlockSize)
            let recordCount = Int(try reader.readUInt32("record count"))
            let bodyLength = try reader.readUInt64("records length")
            // Version 1 is exactly its snapshot; version 2 may have a journal after it.
            guard let snapshotSize = VaultFile.snapshotSize(recordsLength: bodyLength, fileSize: bytes.count) else {
                throw VaultError.corruptVault(path: path, detail: "truncated: \(bytes.count) bytes, the records length says \(bodyLength) more than \(minimum)")
            }
            let checksumStart = snapshotSize - SHA256.digestSize
            let checksum = try SHA256.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<checksumStart]))
            guard checksum == Array(bytes[checksumStart..<snapshotSize]) else {
                throw VaultError.corruptVault(path: path, detail: "checksum mismatch")
            }
            guard version >= 2 || snapshotSize == bytes.count else {
                throw VaultError.corruptVault(path: path, detail: "length fields say \(snapshotSize) bytes, the file has \(bytes.count)")
            }
            do {
                var keyBlock = try decodeKeyBlock(bytes, path: path)
                keyBlock.version = version
                return Envelope(keyBlock: keyBlock, recordCount: recordCount, snapshotSize: snapshotSize)
            } catch let error as ByteReader.Error {
                throw VaultError.corruptVault(path: path, detail: error.description)
            }
        }
    }

    /// Where the snapshot a header's `records-length` describes ends, or nil when a file of
    /// `fileSize` bytes is too short to hold it. Compared without adding to the length read from
    /// the file: a hostile one near 2^64 would wrap the sum.
    package static func snapshotSize(recordsLength: UInt64, fileSize: Int) -> Int? {
        let frame = VaultFileFormat.headerSize + VaultFileFormat.trailerSize
        guard fileSize >= frame, recordsLength <= UInt64(fileSize - frame) else { return nil }
        return frame + Int(recordsLength)
    }

    /// Parses the records section. Call only after `verify`.
    static func decodeRecords(_ bytes: [UInt8], envelope: Envelope, path: String) throws -> [SealedRecord] {
        try bytes.withUnsafeBytes { bytes in
            do {
                var records: [SealedRecord] = []
                records.reserveCapacity(min(envelope.recordCount, 1 << 16))
                let body = UnsafeRawBufferPointer(rebasing: bytes[0..<(envelope.snapshotSize - VaultFileFormat.trailerSize)])
                var reader = ByteReader(body, offset: VaultFileFormat.headerSize)
                for index in 0..<envelope.recordCount {
                    records.append(try readRecord(&reader, "item \(index)"))
                }
                guard reader.remaining == 0 else { throw ByteReader.Error(description: "\(reader.remaining) bytes after the last record") }
                return records
            } catch let error as ByteReader.Error {
                throw VaultError.corruptVault(path: path, detail: error.description)
            }
        }
    }

    /// One record: item id, metadata box, secret box (in the snapshot and in journal upserts).
    static func readRecord(_ reader: inout ByteReader, _ what: String) throws -> SealedRecord {
        let start = reader.offset
        try reader.skip(count: VaultFileFormat.itemIDSize, "\(what) id")
        try skipBox(&reader, "\(what) metadata")
        try skipBox(&reader, "\(what) secret")
        return SealedRecord(checked: reader.bytes(from: start))
    }

    /// Appends a record as `readRecord` reads it.
    static func appendRecord(_ record: SealedRecord, to body: inout ByteWriter) {
        body.append(raw: record.bytes)
    }

    /// Checks the snapshot MAC: proves the snapshot was written by a holder of `dataKey`.
    static func verify(_ bytes: [UInt8], envelope: Envelope, dataKey: SecretBytes, path: String) throws {
        let macStart = envelope.snapshotSize - VaultFileFormat.trailerSize
        let nonce = Array(bytes[macStart..<macStart + AESGCM.nonceSize])
        let tag = Array(bytes[(macStart + AESGCM.nonceSize)..<(macStart + AESGCM.nonceSize + AESGCM.tagSize)])
        do {
            _ = try AESGCM.open(
                AESGCM.SealedBox(nonce: nonce, ciphertext: [], tag: tag), key: dataKey,
                authenticating: VaultFileFormat.fileContext(version: envelope.keyBlock.version) + Array(bytes[0..<macStart]))
        } catch CryptoError.authenticationFailed {
            throw VaultError.tamperedVault(path: path, detail: "file MAC does not verify")
        }
    }

    private static func decodeKeyBlock(_ bytes: UnsafeRawBufferPointer, path: String) throws -> VaultKeyBlock {
        var reader = ByteReader(bytes, offset: VaultFileFormat.magic.count + 2)
        let flags = try reader.readUInt16("flags")
        guard flags == 0 else {
            throw VaultError.unsupportedVersion(path: path, found: Int(UInt16(bytes[8]) << 8 | UInt16(bytes[9])), supported: Int(VaultFileFormat.version))
        }
        let kdf = try reader.readUInt8("kdf")
        guard kdf == VaultFileFormat.kdfScrypt else { throw ByteReader.Error(description: "unknown key derivation function \(kdf)") }
        let parameters = Scrypt.Parameters(
            log2N: try reader.readUInt8("scrypt log2N"), r: try reader.readUInt32("scrypt r"), p: try reader.readUInt32("scrypt p"))
        do { try parameters.validate() } catch { throw ByteReader.Error(description: "\(error)") }
        let salt = try reader.read(count: VaultFileFormat.saltSize, "salt")
        let vaultID = try reader.read(count: VaultFileFormat.vaultIDSize, "vault id")
        let wrapped = AESGCM.SealedBox(
            nonce: try reader.read(count: AESGCM.nonceSize, "wrap nonce"),
            ciphertext: try reader.read(count: AESGCM.keySize, "wrapped key"),
            tag: try reader.read(count: AESGCM.tagSize, "wrap tag"))
        return VaultKeyBlock(parameters: parameters, salt: salt, vaultID: vaultID, wrappedKey: wrapped)
    }

    private static func skipBox(_ reader: inout ByteReader, _ what: String) throws {
        let length = Int(try reader.readUInt32("\(what) length"))
        guard length <= ItemLimits.maxSecretBytes + 16 * 1024 else {
            throw ByteReader.Error(description: "\(what) claims \(length) bytes")
        }
        try reader.skip(count: AESGCM.nonceSize, "\(what) nonce")
        try reader.skip(count: length, what)
        try reader.skip(count: AESGCM.tagSize, "\(what) tag")
    }
}
