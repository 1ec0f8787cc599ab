import VaultCore

/// One item as the file holds it: a random item id, the sealed metadata (names, label, comment,
/// kind, times) and the sealed secret. Secrets stay sealed in memory until someone asks for them.
struct SealedRecord: Sendable {
    var itemID: [UInt8]
    var metadata: AESGCM.SealedBox
    var secret: AESGCM.SealedBox

    static func seal(info: ItemInfo, secret: SecretBytes, itemID: [UInt8], vaultID: [UInt8], key: SecretBytes) throws -> SealedRecord {
        let metadata = try sealMetadata(info, itemID: itemID, vaultID: vaultID, key: key)
        let sealedSecret = try AESGCM.seal(secret, key: key, authenticating: VaultFileFormat.secretAAD(vaultID: vaultID, itemID: itemID))
        return SealedRecord(itemID: itemID, metadata: metadata, secret: sealedSecret)
    }

    static func sealMetadata(_ info: ItemInfo, itemID: [UInt8], vaultID: [UInt8], key: SecretBytes) throws -> AESGCM.SealedBox {
        var writer = ByteWriter(capacity: 64)
        writer.append(kindCode(info.kind))
        writer.append(info.created)
        writer.append(info.modified)
        writer.append(string: info.key.service)
        writer.append(string: info.key.account)
        writer.append(string: info.label)
        writer.append(string: info.comment)
        return try AESGCM.seal(writer.bytes, key: key, authenticating: VaultFileFormat.metadataAAD(vaultID: vaultID, itemID: itemID))
    }

    /// Decrypts the metadata. Throws `CryptoError.authenticationFailed` or `ByteReader.Error`.
    func openMetadata(vaultID: [UInt8], key: SecretBytes) throws -> ItemInfo {
        let plain = try AESGCM.open(metadata, key: key, authenticating: VaultFileFormat.metadataAAD(vaultID: vaultID, itemID: itemID))
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
            guard reader.remaining == 0 else { throw ByteReader.Error(description: "\(reader.remaining) unexpected bytes after metadata") }
            let key: ItemKey
            do { key = try ItemKey(service: service, account: account) } catch {
                throw ByteReader.Error(description: "invalid item name: \(error)")
            }
            return ItemInfo(key: key, label: label, comment: comment, kind: kind, created: created, modified: modified)
        }
    }

    func openSecret(vaultID: [UInt8], key: SecretBytes) throws -> SecretBytes {
        try AESGCM.open(secret, key: key, authenticating: VaultFileFormat.secretAAD(vaultID: vaultID, itemID: itemID))
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
