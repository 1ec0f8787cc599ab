import VaultHelpers

/// A git configuration file as git-credential-vault reads it to decide whether git must be asked
/// about `vaultSession` (`GitConfigText`): whether the name appears agrees with a plain
/// case-insensitive search; every include path it follows is a plain, non-empty path; and the
/// file with CRLF line ends reads as with LF.
enum GitConfigTarget: FuzzTarget {
    static let name = "git-config"
    static let maxLength = 4096

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        let text = GitConfigText(bytes: input)
        let lowered = input.map { (0x41...0x5A).contains($0) ? $0 + 32 : $0 }
        let needle = Array("vaultsession".utf8)
        let present = lowered.count >= needle.count && (0...(lowered.count - needle.count)).contains { Array(lowered[$0..<($0 + needle.count)]) == needle }
        try FuzzFinding.check(text.mentions("vaultsession") == present, "mentions disagrees with a plain search")
        let paths = text.includePaths()
        for path in paths ?? [] {
            try FuzzFinding.check(!path.isEmpty && !path.contains("\"") && !path.contains("\\") && !path.contains("\n"),
                                  "an include path that is not a plain path was followed")
        }
        guard let (lf, crlf) = lineEndTwins(input) else { return }
        let (fromLF, fromCRLF) = (GitConfigText(bytes: lf).includePaths(), GitConfigText(bytes: crlf).includePaths())
        try FuzzFinding.check(fromLF == fromCRLF, "a file with CRLF line ends reads differently from LF")
    }
}
