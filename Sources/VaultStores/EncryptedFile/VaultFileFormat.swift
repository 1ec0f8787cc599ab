import VaultCore
import VaultCrypto

/// Constants of the vault file format (docs/file-format.md is the normative description).
package enum VaultFileFormat {
    static let magic: [UInt8] = [0x89, 0x56, 0x41, 0x55, 0x4C, 0x54, 0x0D, 0x0A]  // \x89 "VAULT" \r \n
    /// The version written. Version 1 (no attributes, no journal) is still read.
    package static let version: UInt16 = 2
    static let oldestReadableVersion: UInt16 = 1
    static let kdfScrypt: UInt8 = 1

    static let saltSize = 32
    package static let vaultIDSize = 16
    package static let itemIDSize = 16

    /// magic, version, flags, kdf, log2N, r, p, salt, vault id.
    static let keyParametersSize = 8 + 2 + 2 + 1 + 1 + 4 + 4 + saltSize + vaultIDSize  // 70
    /// Key parameters plus the wrapped data key (nonce, ciphertext, tag).
    package static let keyBlockSize = keyParametersSize + AESGCM.nonceSize + AESGCM.keySize + AESGCM.tagSize  // 130
    /// Key block, record count (u32), records length (u64).
    package static let headerSize = keyBlockSize + 4 + 8  // 142
    /// Snapshot MAC (nonce, tag) and SHA-256 checksum.
    package static let trailerSize = AESGCM.nonceSize + AESGCM.tagSize + SHA256.digestSize  // 60

    /// Refuse to read anything bigger: a vault holds small secrets.
    static let maxFileSize = 256 * 1024 * 1024

    // Domain separation for the additional authenticated data of each kind of ciphertext.
    static let keyWrapContext = Array("vault/v1/key".utf8)
    static let secretContext = Array("vault/v1/secret".utf8)

    static func metadataContext(version: UInt16) -> [UInt8] { Array("vault/v\(version)/meta".utf8) }
    package static func fileContext(version: UInt16) -> [UInt8] { Array("vault/v\(version)/file".utf8) }

    package static func metadataAAD(version: UInt16, vaultID: [UInt8], itemID: some Collection<UInt8>) -> [UInt8] {
        joined(metadataContext(version: version), vaultID, itemID)
    }
    /// On every `get`'s path: one allocation, the item id read where it lies (a record's bytes).
    package static func secretAAD(vaultID: [UInt8], itemID: some Collection<UInt8>) -> [UInt8] { joined(secretContext, vaultID, itemID) }

    private static func joined(_ context: [UInt8], _ vaultID: [UInt8], _ itemID: some Collection<UInt8>) -> [UInt8] {
        var aad: [UInt8] = []
        aad.reserveCapacity(context.count + vaultID.count + itemID.count)
        aad += context
        aad += vaultID
        aad += itemID
        return aad
    }
}
