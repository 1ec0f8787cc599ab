import VaultCore
import VaultDaemon

/// vaultd's configuration file: a file with CRLF line ends reads like its LF twin, and what
/// `updating` writes parses to the same settings plus the change.
enum ConfigFileTarget: FuzzTarget {
    static let name = "config-file"
    static let maxLength = 2048

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let text = String(validating: input, as: UTF8.self) else { return }
        let read = try? ConfigFile(path: "/f", text: text, home: "/home/u")
        for twin in lineEndTwins(input).map({ [$0.lf, $0.crlf] }) ?? [] {
            let other = try? ConfigFile(path: "/f", text: String(decoding: twin, as: UTF8.self), home: "/home/u")
            try FuzzFinding.check(other?.values == read?.values, "a file and its twin with other line ends read differently")
        }
        guard let read else { return }
        for (setting, value) in [(ConfigFile.Setting.backend, "secret-service"), (.file, "/srv/vault #1/v.db"), (.passphraseFile, "/p")] {
            guard let updated = try? read.updating(setting, to: value) else { continue }
            guard let reread = try? ConfigFile(path: "/f", text: updated, home: "/home/u") else {
                throw FuzzFinding("what updating wrote does not parse")
            }
            var expected = read.values
            expected[setting] = value
            try FuzzFinding.check(reread.values == expected, "what updating wrote parses to other settings")
        }
    }
}
