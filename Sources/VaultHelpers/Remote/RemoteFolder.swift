import VaultCore

/// Where a credential helper keeps its credentials in a team's engine instead of local items:
/// `REMOTE/FOLDER` (a remote of `vaultctl remote add`, then a folder path under its prefix,
/// possibly empty). A credential is the secret `FOLDER/NAME…`, each of its names one path
/// segment, percent-encoded as the Python keyring backend encodes them (RFC 3986 unreserved
/// characters kept), so any URL or username is one segment and never reaches another path.
package struct RemoteFolder: Equatable, Sendable {
    package let remote: String
    package let folder: String

    /// nil when `setting` is absent or empty (the helper keeps local items); throws for a
    /// setting that names no remote or whose folder is not a path.
    package init?(setting: String?, from source: String) throws(HelperFailure) {
        guard let trimmed = setting.map({ $0.trimming(["/"]) }), !trimmed.isEmpty else { return nil }
        let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let remote = String(parts[0])
        let folder = parts.count > 1 ? String(parts[1]) : ""
        if let problem = RemoteName.problem(with: remote) {
            throw HelperFailure("\(source) must be REMOTE/FOLDER with a remote of 'vaultctl remote add': \(problem)")
        }
        if !folder.isEmpty, let problem = KVPath.problem(with: folder) {
            throw HelperFailure("\(source) must be REMOTE/FOLDER: \(problem)")
        }
        self.remote = remote
        self.folder = folder
    }

    /// The secret named by `names` in this folder.
    package func path(_ names: [String]) throws(HelperFailure) -> String {
        let segments = names.map(KVPath.encoded)
        guard !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw HelperFailure("a credential kept in remote '\(remote)' needs names that are not empty, '.' or '..'")
        }
        let path = ([folder].filter { !$0.isEmpty } + segments).joined(separator: "/")
        if let problem = KVPath.problem(with: path) { throw HelperFailure("vault cannot keep this credential in remote '\(remote)': \(problem)") }
        return path
    }

    /// The folder holding the secrets `path(names + [name])` names, ending in `/`.
    package func folderPath(_ names: [String]) throws(HelperFailure) -> String {
        names.isEmpty ? (folder.isEmpty ? "" : folder + "/") : try path(names) + "/"
    }

    /// The name a listed segment encodes; nil for a folder or a segment that is not one.
    package static func name(listed segment: String) -> String? {
        guard !segment.hasSuffix("/") else { return nil }
        var bytes: [UInt8] = []
        var utf8 = segment.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
