import VaultCore

/// How secrets travel: `secret` when the bytes are valid UTF-8, `secret_b64` otherwise. Both
/// ways go between the line and `SecretBytes` directly (`SecretFields`, `SecretSplice`).
enum WireSecret {
    /// Encodes `secret` under `text` when it is UTF-8, else as base64 under `base64`.
    static func encode<Key: CodingKey>(
        _ secret: SecretBytes, text: Key, base64: Key, in container: inout KeyedEncodingContainer<Key>, encoder: Encoder
    ) throws {
        if secret.withUnsafeBytes(UTF8Validation.isValid) {
            try container.encodeSecret(secret, as: .text, forKey: text, in: encoder)
        } else {
            try container.encodeSecret(secret, as: .base64, forKey: base64, in: encoder)
        }
    }

    /// Reads `text` or `base64` (exactly one); throws `VaultError.invalidInput` naming `field`.
    static func decode(text: SecretBytes?, base64: SecretBytes?, field: String) throws -> SecretBytes? {
        switch (text, base64) {
        case (nil, nil):
            return nil
        case (let text?, nil):
            return text
        case (nil, let base64?):
            guard let bytes = Base64Bytes.decode(base64) else {
                throw VaultError.invalidInput("\(field)_b64 is not valid base64")
            }
            return bytes
        case (_?, _?):
            throw VaultError.invalidInput("give either \(field) or \(field)_b64, not both")
        }
    }

    /// `field` and `field_b64` of the object `decoder` decodes, read by `SecretFields`.
    static func decode(_ decoder: Decoder, field: String) throws -> SecretBytes? {
        let fields = try SecretFields.of(decoder)
        return try decode(text: fields.string(field), base64: fields.string(field + "_b64"), field: field)
    }
}
