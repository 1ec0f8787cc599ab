import VaultCore
import VaultCrypto

/// The start of a vault file: format version, KDF parameters, salt, vault id, and the data key
/// wrapped under the passphrase key. Everything here is authenticated by the wrap's GCM tag, the
/// version too: a block read from a version 1 file is re-wrapped (`unwrapUpgrading`) before it
/// can head a version 2 file.
package struct VaultKeyBlock: Sendable, Equatable {
    /// The file format version this block carries (and the file it heads is).
    package var version: UInt16 = VaultFileFormat.version
    var parameters: Scrypt.Parameters
    var salt: [UInt8]
    var vaultID: [UInt8]
    var wrappedKey: AESGCM.SealedBox

    /// The 70 bytes the wrap authenticates.
    func encodedParameters() -> [UInt8] {
        var writer = ByteWriter(capacity: VaultFileFormat.keyParametersSize)
        writer.append(raw: VaultFileFormat.magic)
        writer.append(version)
        writer.append(UInt16(0))  // flags, reserved
        writer.append(VaultFileFormat.kdfScrypt)
        writer.append(parameters.log2N)
        writer.append(parameters.r)
        writer.append(parameters.p)
        writer.append(raw: salt)
        writer.append(raw: vaultID)
        return writer.bytes
    }

    package func encoded() -> [UInt8] {
        encodedParameters() + wrappedKey.nonce + wrappedKey.ciphertext + wrappedKey.tag
    }

    /// Creates a key block for a new passphrase: fresh salt, the data key wrapped under scrypt(passphrase).
    static func wrapping(
        dataKey: SecretBytes, passphrase: SecretBytes, parameters: Scrypt.Parameters, vaultID: [UInt8]
    ) throws -> VaultKeyBlock {
        let salt = try SecureRandom.bytes(VaultFileFormat.saltSize)
        var block = VaultKeyBlock(
            parameters: parameters, salt: salt, vaultID: vaultID,
            wrappedKey: AESGCM.SealedBox(nonce: [], ciphertext: [], tag: []))
        let wrappingKey = try Scrypt.deriveKey(passphrase: passphrase, salt: salt, parameters: parameters)
        block.wrappedKey = try AESGCM.seal(
            dataKey, key: wrappingKey, authenticating: VaultFileFormat.keyWrapContext + block.encodedParameters())
        return block
    }

    /// Recovers the data key; a failed tag means the passphrase is wrong (the checksum already
    /// ruled out accidental damage to these bytes).
    func unwrap(passphrase: SecretBytes) throws -> SecretBytes {
        try unwrapUpgrading(passphrase: passphrase).dataKey
    }

    /// Recovers the data key and returns this block as the current format version would head a
    /// file: itself when it already is, else re-wrapped under the same passphrase key (one scrypt;
    /// same salt, fresh nonce) with the current version, so that the next write can upgrade the
    /// file without asking for the passphrase again.
    func unwrapUpgrading(passphrase: SecretBytes) throws -> (dataKey: SecretBytes, current: VaultKeyBlock) {
        let wrappingKey = try Scrypt.deriveKey(passphrase: passphrase, salt: salt, parameters: parameters)
        let dataKey: SecretBytes
        do {
            let key = try AESGCM.open(
                wrappedKey, key: wrappingKey, authenticating: VaultFileFormat.keyWrapContext + encodedParameters())
            dataKey = key.withUnsafeBytes { SecretBytes(copying: $0, lockInMemory: true) }
        } catch CryptoError.authenticationFailed {
            throw VaultError.wrongPassphrase
        }
        guard version != VaultFileFormat.version else { return (dataKey, self) }
        var upgraded = self
        upgraded.version = VaultFileFormat.version
        upgraded.wrappedKey = try AESGCM.seal(
            dataKey, key: wrappingKey, authenticating: VaultFileFormat.keyWrapContext + upgraded.encodedParameters())
        return (dataKey, upgraded)
    }
}
