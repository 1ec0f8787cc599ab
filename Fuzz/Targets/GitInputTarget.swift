import VaultCore
import VaultHelpers

/// What git writes to `git-credential-vault`: what parses, written back as git writes it, parses
/// to the same credential.
enum GitInputTarget: FuzzTarget {
    static let name = "git-input"
    static let maxLength = 4096

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let credential = try? GitCredential(parsing: SecretBytes(input)) else { return }
        // A value ending in CR cannot be written back: git strips the CR of a CRLF line end.
        let secrets = credential.secrets.mapValues { $0.unprotectedBytes }
        guard !credential.values.values.contains(where: { $0.hasSuffix("\r") }),
              !secrets.values.contains(where: { $0.last == 0x0D }),
              !credential.lists.values.joined().contains(where: { $0.hasSuffix("\r") }) else { return }
        var written: [UInt8] = []
        for (key, value) in credential.values.sorted(by: { $0.key < $1.key }) { written += Array("\(key)=\(value)\n".utf8) }
        for (key, value) in secrets.sorted(by: { $0.key < $1.key }) { written += Array("\(key)=".utf8) + value + [0x0A] }
        for (key, list) in credential.lists.sorted(by: { $0.key < $1.key }) {
            for value in list { written += Array("\(key)[]=\(value)\n".utf8) }
        }
        guard let again = try? GitCredential(parsing: SecretBytes(written)) else { throw FuzzFinding("a parsed credential, written back, does not parse") }
        try FuzzFinding.check(again.values == credential.values && again.lists == credential.lists
                              && again.secrets.mapValues({ $0.unprotectedBytes }) == secrets, "a parsed credential, written back, reads differently")
    }
}
