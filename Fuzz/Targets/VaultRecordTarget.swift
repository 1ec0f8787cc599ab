import VaultCore
import VaultCrypto
import VaultStores

/// An item's metadata as the vault file seals it (kind, times, names, label, comment,
/// attributes, content type), opened as format version 1 or 2 (the input's first byte picks).
/// The plaintext is sealed under a fixed key first, so every mutation reaches the reader; what
/// opens as version 2 seals again to the very same plaintext.
enum VaultRecordTarget: FuzzTarget {
    static let name = "vault-record"
    static let maxLength = 4096
    static let vaultID = [UInt8](repeating: 0x11, count: VaultFileFormat.vaultIDSize)
    static let itemID = [UInt8](repeating: 0x22, count: VaultFileFormat.itemIDSize)

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let first = input.first else { return }
        let version: UInt16 = first & 1 == 0 ? 2 : 1
        let plaintext = Array(input.dropFirst())
        let key = VaultFileTarget.dataKey
        guard let metadata = try? AESGCM.seal(plaintext, key: key, authenticating: VaultFileFormat.metadataAAD(version: version, vaultID: vaultID, itemID: itemID), nonce: VaultFileTarget.nonce),
              let secret = try? AESGCM.seal([], key: key, authenticating: VaultFileFormat.secretAAD(vaultID: vaultID, itemID: itemID), nonce: VaultFileTarget.nonce) else { return }
        let record = SealedRecord(itemID: itemID, metadata: metadata, secret: secret)
        guard let info = try? record.openMetadata(version: version, vaultID: vaultID, key: key), version == 2 else { return }
        guard let sealed = try? SealedRecord.sealMetadata(info, itemID: itemID, vaultID: vaultID, key: key),
              let again = try? AESGCM.open(sealed, key: key, authenticating: VaultFileFormat.metadataAAD(version: 2, vaultID: vaultID, itemID: itemID)) else {
            throw FuzzFinding("metadata that opened cannot be sealed and opened again")
        }
        try FuzzFinding.check(again.unprotectedBytes == plaintext, "metadata that opened seals to other bytes")
    }
}
