import VaultCore
import VaultCrypto

/// The journal after a version 2 snapshot (docs/file-format.md, "Journal entries"): each write
/// appends one sealed entry, authenticated under the data key over its bytes and the previous
/// entry's tag (the snapshot MAC's tag for the first), so entries cannot be removed from the
/// middle, reordered, duplicated or replayed; a checksum and a length check tell damage from a
/// torn last entry, which a writer killed while appending leaves and which is ignored.
package enum VaultJournal {
    package enum Entry: Sendable {
        case upsert(SealedRecord)
        case deletion(itemID: [UInt8])

        var itemID: [UInt8] {
            switch self {
            case .upsert(let record): record.itemID
            case .deletion(let itemID): itemID
            }
        }
    }

    /// Where a reader or writer is: the end of the last complete entry and its tag.
    package struct Position: Sendable, Equatable {
        package var end: Int
        package var lastTag: [UInt8]
    }

    /// Length and length check.
    package static let headerSize = 8
    /// Nonce, tag, checksum.
    package static let trailerSize = AESGCM.nonceSize + AESGCM.tagSize + SHA256.digestSize  // 60
    package static let maxBodySize = 256 * 1024
    static let context = Array("vault/v2/entry".utf8)
    static let upsertType: UInt8 = 1
    static let deletionType: UInt8 = 2

    /// The entry's bytes, sealed after `previousTag`, and its tag (the next entry's previous tag).
    package static func encode(_ entry: Entry, after previousTag: [UInt8], dataKey: SecretBytes) throws -> (bytes: [UInt8], tag: [UInt8]) {
        var body = ByteWriter(capacity: 256)
        switch entry {
        case .upsert(let record):
            body.append(upsertType)
            VaultFile.appendRecord(record, to: &body)
        case .deletion(let itemID):
            body.append(deletionType)
            body.append(raw: itemID)
        }
        var writer = ByteWriter(capacity: headerSize + body.bytes.count + trailerSize)
        let length = UInt32(body.bytes.count)
        writer.append(length)
        writer.append(~length)
        writer.append(raw: body.bytes)
        let mac = try AESGCM.seal([], key: dataKey, authenticating: context + previousTag + writer.bytes)
        writer.append(raw: mac.nonce)
        writer.append(raw: mac.tag)
        writer.append(raw: try SHA256.hash(writer.bytes))
        return (writer.bytes, mac.tag)
    }

    /// Reads the entries in `bytes`, which start at file offset `start`, chained from
    /// `previousTag`. Stops at a torn last entry (the returned position is where it starts). With
    /// no `dataKey` tags are not checked (counting without a key, for choices only). Throws
    /// `.corruptVault` for damage, `.tamperedVault` for an entry whose tag does not verify.
    package static func read(
        _ bytes: UnsafeRawBufferPointer, start: Int, after previousTag: [UInt8], dataKey: SecretBytes?, path: String
    ) throws -> (entries: [Entry], position: Position) {
        var entries: [Entry] = []
        var offset = 0
        var tag = previousTag
        while bytes.count - offset >= headerSize {
            let left = bytes.count - offset
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            let number = entries.count + 1
            func damaged(_ detail: String) -> VaultError {
                .corruptVault(path: path, detail: "journal entry \(number) (at byte \(start + offset)) \(detail)")
            }
            let length = try reader.readUInt32("length"), check = try reader.readUInt32("length check")
            guard check == ~length else {
                // Zeros from here to the end: the file's size was extended over blocks never
                // written (a power loss during an append that was not acknowledged). No entry
                // starts with zeros (its check would be all ones): a torn entry, not damage.
                if bytes[offset...].allSatisfy({ $0 == 0 }) { break }
                throw damaged("has a damaged length")
            }
            guard length <= maxBodySize else { throw damaged("claims \(length) bytes") }
            let size = headerSize + Int(length) + trailerSize
            if size > left { break }  // torn: a writer stopped while appending it
            let checksumStart = offset + size - SHA256.digestSize
            let checksum = try SHA256.hash(UnsafeRawBufferPointer(rebasing: bytes[offset..<checksumStart]))
            guard checksum.elementsEqual(bytes[checksumStart..<(offset + size)]) else { throw damaged("fails its checksum") }
            let sealed = Array(bytes[offset..<(offset + headerSize + Int(length))])
            let nonceStart = offset + headerSize + Int(length)
            let entryTag = Array(bytes[(nonceStart + AESGCM.nonceSize)..<(nonceStart + AESGCM.nonceSize + AESGCM.tagSize)])
            if let dataKey {
                do {
                    _ = try AESGCM.open(
                        AESGCM.SealedBox(nonce: Array(bytes[nonceStart..<(nonceStart + AESGCM.nonceSize)]), ciphertext: [], tag: entryTag),
                        key: dataKey, authenticating: context + tag + sealed)
                } catch CryptoError.authenticationFailed {
                    throw VaultError.tamperedVault(
                        path: path, detail: "journal entry \(number) does not verify (altered, or removed, moved or repeated in the file)")
                }
            }
            do {
                entries.append(try decodeBody(Array(sealed[headerSize...])))
            } catch let error as ByteReader.Error {
                throw damaged(error.description)
            }
            tag = entryTag
            offset += size
        }
        return (entries, Position(end: start + offset, lastTag: tag))
    }

    private static func decodeBody(_ body: [UInt8]) throws -> Entry {
        try body.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            let entry: Entry
            switch try reader.readUInt8("type") {
            case upsertType: entry = .upsert(try VaultFile.readRecord(&reader, "the item"))
            case deletionType: entry = .deletion(itemID: try reader.read(count: VaultFileFormat.itemIDSize, "the item id"))
            case let type: throw ByteReader.Error(description: "has unknown type \(type)")
            }
            guard reader.remaining == 0 else { throw ByteReader.Error(description: "has \(reader.remaining) bytes after its item") }
            return entry
        }
    }
}
