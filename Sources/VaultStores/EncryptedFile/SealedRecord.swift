import VaultCore
import VaultCrypto

/// One item as the file holds it: a random item id, the sealed metadata (names, label, comment,
/// kind, times, other attributes, content type) and the sealed secret. Secrets stay sealed in
/// memory until someone asks for them. Records are sealed in the current format version; version
/// 1 metadata (no attributes, content type `text/plain`) is still opened.
///
/// Kept as one array in the file's own layout (docs/file-format.md, "Records"): item id (16) ‖
/// for the metadata, then the secret: ciphertext length (u32) ‖ nonce (12) ‖ ciphertext ‖ tag
/// (16). One allocation per item instead of seven (an array per id, nonce, ciphertext and tag),
/// which is most of what a vault of 100,000 items kept in memory; the parts are read in place.
package struct SealedRecord: Sendable {
    package private(set) var bytes: [UInt8]

    package init(itemID: [UInt8], metadata: AESGCM.SealedBox, secret: AESGCM.SealedBox) {
        precondition(itemID.count == VaultFileFormat.itemIDSize, "an item id is 16 bytes")
        var writer = ByteWriter(capacity: itemID.count + 2 * Self.boxOverhead + metadata.ciphertext.count + secret.ciphertext.count)
        writer.append(raw: itemID)
        for box in [metadata, secret] {
            writer.append(UInt32(box.ciphertext.count))
            writer.append(raw: box.nonce)
            writer.append(raw: box.ciphertext)
            writer.append(raw: box.tag)
        }
        bytes = writer.bytes
    }

    /// A record's bytes as `VaultFile.readRecord` checked them.
    init(checked bytes: [UInt8]) { self.bytes = bytes }

    /// Length, nonce and tag around each box's ciphertext.
    static let boxOverhead = 4 + AESGCM.nonceSize + AESGCM.tagSize

    /// The item id where it lies in `bytes`.
    private var idBytes: ArraySlice<UInt8> { bytes[0..<VaultFileFormat.itemIDSize] }

    package var itemID: [UInt8] {
        get { Array(idBytes) }
        set { self = SealedRecord(itemID: newValue, metadata: metadata, secret: secret) }
    }

    var id: ItemID { bytes.withUnsafeBytes { ItemID($0) } }

    package var metadata: AESGCM.SealedBox {
        get { box(at: VaultFileFormat.itemIDSize) }
        set { self = SealedRecord(itemID: itemID, metadata: newValue, secret: secret) }
    }

    package var secret: AESGCM.SealedBox { box(at: secretStart) }

    /// Where the box starting at `start` lies: nonce, ciphertext and tag ranges.
    private func ranges(at start: Int) -> (nonce: Range<Int>, ciphertext: Range<Int>, tag: Range<Int>) {
        let length = bytes[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        let nonce = start + 4
        let ciphertext = nonce + AESGCM.nonceSize
        let tag = ciphertext + length
        return (nonce..<ciphertext, ciphertext..<tag, tag..<tag + AESGCM.tagSize)
    }

    private var secretStart: Int { ranges(at: VaultFileFormat.itemIDSize).tag.upperBound }

    private func box(at start: Int) -> AESGCM.SealedBox {
        let parts = ranges(at: start)
        return AESGCM.SealedBox(nonce: Array(bytes[parts.nonce]), ciphertext: Array(bytes[parts.ciphertext]), tag: Array(bytes[parts.tag]))
    }

    /// Opens the box at `start` in place.
    func open(at start: Int, key: SecretBytes, authenticating aad: [UInt8]) throws -> SecretBytes {
        let parts = ranges(at: start)
        return try bytes.withUnsafeBytes { raw in
            try AESGCM.open(nonce: UnsafeRawBufferPointer(rebasing: raw[parts.nonce]), ciphertext: UnsafeRawBufferPointer(rebasing: raw[parts.ciphertext]),
                            tag: UnsafeRawBufferPointer(rebasing: raw[parts.tag]), key: key, authenticating: aad)
        }
    }

    static func seal(info: ItemInfo, secret: SecretBytes, itemID: [UInt8], vaultID: [UInt8], key: SecretBytes) throws -> SealedRecord {
        let metadata = try sealMetadata(info, itemID: itemID, vaultID: vaultID, key: key)
        let sealedSecret = try AESGCM.seal(secret, key: key, authenticating: VaultFileFormat.secretAAD(vaultID: vaultID, itemID: itemID))
        return SealedRecord(itemID: itemID, metadata: metadata, secret: sealedSecret)
    }

    package static func sealMetadata(_ info: ItemInfo, itemID: [UInt8], vaultID: [UInt8], key: SecretBytes) throws -> AESGCM.SealedBox {
        var writer = ByteWriter(capacity: 64)
        writer.append(kindCode(info.kind))
        writer.append(info.created)
        writer.append(info.modified)
        writer.append(string: info.key.service)
        writer.append(string: info.key.account)
        writer.append(string: info.label)
        writer.append(string: info.comment)
        let attributes = info.attributes.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        writer.append(UInt32(attributes.count))
        for (name, value) in attributes {
            writer.append(string: name)
            writer.append(string: value)
        }
        writer.append(string: info.contentType)
        return try AESGCM.seal(
            writer.bytes, key: key,
            authenticating: VaultFileFormat.metadataAAD(version: VaultFileFormat.version, vaultID: vaultID, itemID: itemID))
    }

    /// Decrypts the metadata, laid out as format `version` lays it out. Throws
    /// `CryptoError.authenticationFailed` or `ByteReader.Error`.
    package func openMetadata(version: UInt16, vaultID: [UInt8], key: SecretBytes) throws -> ItemInfo {
        let plain = try open(at: VaultFileFormat.itemIDSize, key: key,
                             authenticating: VaultFileFormat.metadataAAD(version: version, vaultID: vaultID, itemID: idBytes))
        return try plain.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            let kindByte = try reader.readUInt8("kind")
            guard let kind = SealedRecord.kind(kindByte) else {
                throw ByteReader.Error(description: "unknown item kind \(kindByte)")
            }
            let created = try reader.readInt64("created")
            let modified = try reader.readInt64("modified")
            let service = try reader.readString("service", limit: ItemLimits.maxNameBytes)
            let account = try reader.readString("account", limit: ItemLimits.maxNameBytes)
            let label = try reader.readString("label", limit: ItemLimits.maxLabelBytes)
            let comment = try reader.readString("comment", limit: ItemLimits.maxCommentBytes)
            var attributes: [String: String] = [:]
            var contentType = ItemAttributes.defaultContentType
            if version >= 2 {
                attributes = try Self.readAttributes(&reader)
                contentType = try reader.readString("content type", limit: ItemLimits.maxContentTypeBytes)
                if let problem = ItemAttributes.problem(withContentType: contentType) { throw ByteReader.Error(description: problem) }
            }
            guard reader.remaining == 0 else { throw ByteReader.Error(description: "\(reader.remaining) unexpected bytes after metadata") }
            let key: ItemKey
            do { key = try ItemKey(service: service, account: account) } catch {
                throw ByteReader.Error(description: "invalid item name: \(error)")
            }
            if let problem = ItemAttributes.problem(with: attributes, keyIsMadeUp: key.isAttributeOnly) { throw ByteReader.Error(description: problem) }
            return ItemInfo(
                key: key, label: label, comment: comment, kind: kind, created: created, modified: modified,
                attributes: attributes, contentType: contentType)
        }
    }

    /// The attribute count and pairs: at most `ItemLimits.maxAttributes`, names in strictly
    /// increasing byte order (so none twice); the caller checks them against the item's key
    /// (`ItemAttributes.problem(with:keyIsMadeUp:)`).
    private static func readAttributes(_ reader: inout ByteReader) throws -> [String: String] {
        let count = try reader.readUInt32("attribute count")
        guard count <= ItemLimits.maxAttributes else {
            throw ByteReader.Error(description: "\(count) attributes, over the \(ItemLimits.maxAttributes) limit")
        }
        var attributes: [String: String] = [:]
        var previous: String?
        for index in 0..<Int(count) {
            let name = try reader.readString("attribute \(index) name", limit: ItemLimits.maxAttributeNameBytes)
            let value = try reader.readString("attribute \(index) value", limit: ItemLimits.maxAttributeValueBytes)
            if let previous, !previous.utf8.lexicographicallyPrecedes(name.utf8) {
                throw ByteReader.Error(description: "attribute names are not in increasing order")
            }
            // Distinct bytes may still be equal Swift strings (canonically equivalent): one entry each.
            guard attributes.updateValue(value, forKey: name) == nil else {
                throw ByteReader.Error(description: "an attribute name appears twice")
            }
            previous = name
        }
        return attributes
    }

    func openSecret(vaultID: [UInt8], key: SecretBytes) throws -> SecretBytes {
        try open(at: secretStart, key: key, authenticating: VaultFileFormat.secretAAD(vaultID: vaultID, itemID: idBytes))
    }

    private static func kindCode(_ kind: ItemKind) -> UInt8 {
        switch kind {
        case .secret: 0
        case .session: 1
        case .aws: 2
        case .access: 3
        }
    }

    private static func kind(_ code: UInt8) -> ItemKind? {
        switch code {
        case 0: .secret
        case 1: .session
        case 2: .aws
        case 3: .access
        default: nil
        }
    }
}
