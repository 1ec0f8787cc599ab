import VaultCLI
import VaultCore

/// `vaultctl run --env-file`'s dotenv reader: a file with CRLF line ends reads like its LF twin.
enum EnvFileTarget: FuzzTarget {
    static let name = "env-file"
    static let maxLength = 2048

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let read = try? EnvFile(path: "f", bytes: input)
        for twin in lineEndTwins(input).map({ [$0.lf, $0.crlf] }) ?? [] {
            let other = try? EnvFile(path: "f", bytes: twin)
            try FuzzFinding.check(other.map(pairs) == read.map(pairs), "an env file and its twin with other line ends read differently")
        }
    }

    static func pairs(_ file: EnvFile) -> [String] { file.variables.map { $0.name + "=" + $0.value } }
}
