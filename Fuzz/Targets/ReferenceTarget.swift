import VaultClient
import VaultCore

/// `vault://` references: what parses is the same reference once re-written fully percent-encoded.
enum ReferenceTarget: FuzzTarget {
    static let name = "reference"
    static let maxLength = 1024

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let text = String(validating: input, as: UTF8.self), let reference = try? SecretReference(parsing: text) else { return }
        var written = SecretReference.scheme + encoded(reference.service)
        if let account = reference.account { written += "/" + encoded(account) }
        if let field = reference.field { written += "?field=" + encoded(field) }
        guard written.utf8.count <= SecretReference.maxLength else { return }
        guard let again = try? SecretReference(parsing: written) else { throw FuzzFinding("a parsed reference, percent-encoded, does not parse") }
        try FuzzFinding.check(again.service == reference.service && again.account == reference.account && again.field == reference.field,
                              "a parsed reference, percent-encoded, names something else")
    }

    /// Every byte but letters and digits as %XX.
    static func encoded(_ name: String) -> String {
        let hex = Array("0123456789ABCDEF")
        var result = ""
        for byte in name.utf8 {
            if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) {
                result.append(Character(Unicode.Scalar(byte)))
            } else {
                result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return result
    }
}
