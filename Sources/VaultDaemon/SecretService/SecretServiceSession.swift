import VaultCore
import VaultCrypto

/// One Secret Service session: opened by one bus connection (`owner`, its unique name), which
/// alone may use it, and closed by `Close` or when that connection leaves the bus. A `plain`
/// session carries secrets as they are; a DH one (`key` set) under AES-128-CBC with a fresh IV.
final class SecretServiceSession: Sendable {
    static let plain = "plain"
    static let dh = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    let path: String
    let owner: String
    let key: SecretBytes?

    init(path: String, owner: String, key: SecretBytes?) {
        self.path = path
        self.owner = owner
        self.key = key
    }

    /// The Secret struct `(oayays)` carrying `secret` to the owner.
    func encode(_ secret: SecretBytes, contentType: String) throws -> BusValue {
        guard let key else {
            return .tuple([.objectPath(path), .bytes(.empty), .bytes(secret), .string(contentType)])
        }
        let (iv, ciphertext) = try AESCBC.encrypt(secret, key: key)
        return .tuple([.objectPath(path), .bytes(SecretBytes(iv)), .bytes(SecretBytes(ciphertext)), .string(contentType)])
    }

    /// The secret in a Secret struct the owner sent; `InvalidArgs` when it does not decrypt.
    func decode(parameters: SecretBytes, value: SecretBytes) throws(BusError) -> SecretBytes {
        guard let key else {
            guard parameters.isEmpty else { throw .invalidArgs("a plain session's secret has no parameters") }
            return value
        }
        guard value.count <= ItemLimits.maxSecretBytes + AESCBC.blockSize else {
            throw .invalidArgs("the secret is \(value.count) bytes; the limit is \(ItemLimits.maxSecretBytes)")
        }
        do {
            return try AESCBC.decrypt(value.unprotectedBytes, key: key, iv: parameters.unprotectedBytes)
        } catch {
            throw .invalidArgs("the secret does not decrypt under this session (\(error))")
        }
    }
}
