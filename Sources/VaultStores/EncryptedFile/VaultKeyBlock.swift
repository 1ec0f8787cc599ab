import VaultCore

/// The start of a vault file: format version, KDF parameters, salt, vault id, and the data key
/// wrapped under the passphrase key. Everything here is authenticated by the wrap's GCM tag.
struct VaultKeyBlock: Sendable, Equatable {
    var parameters: Scrypt.Parameters
    var salt: [UInt8]
    var vaultID: [UInt8]
    var wrappedKey: AESGCM.SealedBox

    /// The 70 bytes the wrap authenticates.
    func encodedParameters() -> [UInt8] {
        var writer = ByteWriter(capacity: VaultFileFormat.keyParametersSize)
        writer.append(raw: VaultFileFormat.magic)
        writer.append(VaultFileFormat.version)
        writer.append(UInt16(0))  // flags, reserved
        writer.append(VaultFileFormat.kdfScrypt)
        writer.append(parameters.log2N)
        writer.append(parameters.r)
        writer.append(parameters.p)
        writer.append(raw: salt)
        writer.append(raw: vaultID)
        return writer.bytes
    }

    func encoded() -> [UInt8] {
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
        let wrappingKey = try Scrypt.deriveKey(passphrase: passphrase, salt: salt, parameters: parameters)
        do {
            let key = try AESGCM.open(
                wrappedKey, key: wrappingKey, authenticating: VaultFileFormat.keyWrapContext + encodedParameters())
            return key.withUnsafeBytes { SecretBytes(copying: $0, lockInMemory: true) }
        } catch CryptoError.authenticationFailed {
            throw VaultError.wrongPassphrase
        }
    }
}
