import VaultClient
import VaultCore

/// remote sync: every secret under a folder fetched into vaultd's cache, with progress.
extension Commands {
    func remoteSync(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...2, "NAME [FOLDER]")
        let name = arguments.positionals[0]
        var folder = arguments.positionals.count > 1 ? arguments.positionals[1] : ""
        if !folder.isEmpty, !folder.hasSuffix("/") { folder += "/" }
        let showsProgress = Terminal.isTerminal(2)
        var paths: [String] = []
        var folders = [folder]
        while let next = folders.popLast() {
            for key in try vault.listRemote(remote: name, path: next) {
                if key.hasSuffix("/") { folders.append(next + key) } else { paths.append(next + key) }
            }
            if showsProgress { Output.write(Array("\rlisting: \(paths.count) secrets so far\u{1B}[K".utf8), to: 2) }
        }
        var fetched = 0, refused = 0, deleted = 0
        for (index, path) in paths.sorted().enumerated() {
            do throws(VaultClientError) {
                _ = try vault.readRemote(remote: name, path: path, refresh: true)
                fetched += 1
            } catch {
                switch error.code {
                case .denied: refused += 1
                case .notFound: deleted += 1
                default: throw error
                }
            }
            if showsProgress, index % 20 == 0 || index == paths.count - 1 {
                Output.write(Array("\rfetching: \(index + 1) of \(paths.count)\u{1B}[K".utf8), to: 2)
            }
        }
        if showsProgress { Output.write(Array("\r\u{1B}[K".utf8), to: 2) }
        var line = "fetched \(fetched) secret\(fetched == 1 ? "" : "s") of remote '\(name)' into the cache"
        if refused > 0 { line += "; \(refused) kept from vaultctl by access rules" }
        if deleted > 0 { line += "; \(deleted) whose latest version is deleted" }
        Output.line(line)
    }
}
