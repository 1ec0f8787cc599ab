#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// How secrets travel: `secret` when the bytes are valid UTF-8, `secret_b64` otherwise.
public enum WireSecret {
    public static func encode(_ secret: SecretBytes) -> (text: String?, base64: String?) {
        if let text = secret.utf8String { return (text, nil) }
        return (nil, secret.withUnsafeBytes { Data($0).base64EncodedString() })
    }

    /// A passphrase or password as the text field it travels in. Bytes that are not UTF-8 become
    /// U+FFFD: these fields are text by definition (they are typed).
    public static func text(_ secret: SecretBytes) -> String {
        secret.utf8String ?? String(decoding: secret.unprotectedBytes, as: UTF8.self)
    }

    /// Reads `text` or `base64` (exactly one); throws `VaultError.invalidInput` naming `field`.
    public static func decode(text: String?, base64: String?, field: String) throws -> SecretBytes? {
        switch (text, base64) {
        case (nil, nil):
            return nil
        case (let text?, nil):
            return SecretBytes(utf8: text)
        case (nil, let base64?):
            guard let data = Data(base64Encoded: base64) else {
                throw VaultError.invalidInput("\(field)_b64 is not valid base64")
            }
            return data.withUnsafeBytes { SecretBytes(copying: $0) }
        case (_?, _?):
            throw VaultError.invalidInput("give either \(field) or \(field)_b64, not both")
        }
    }
}
