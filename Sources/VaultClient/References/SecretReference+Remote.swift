import VaultCore

/// A remote secret's reference, `kv://REMOTE/PATH[?field=FIELD][&version=N]`: the secret at
/// PATH (under the remote's prefix) of the remote REMOTE (`vaultctl remote add`). Without
/// `field`, the secret's fields as one JSON object; `version` reads an older version.
/// PATH's segments may be percent-encoded; decoded, it must be a valid path (`KVPath`).
public struct RemoteTarget: Sendable, Hashable {
    public static let scheme = ItemKey.remoteScheme
    public static let form = "kv://REMOTE/PATH[?field=FIELD][&version=N]"

    public let remote: String
    public let path: String
    public let version: Int?
}

extension SecretReference {
    init(parsingRemote text: String) throws(VaultClientError) {
        let shown = Self.shown(text)
        func refuse(_ why: String) -> VaultClientError {
            VaultClientError(code: .badRequest, message: "\(shown) is not a valid reference: \(why); the form is \(RemoteTarget.form)")
        }
        guard text.utf8.count <= Self.maxLength else { throw refuse("it is longer than \(Self.maxLength) bytes") }
        if let problem = Self.characterProblem(text) { throw refuse(problem) }
        let rest = text.dropFirst(RemoteTarget.scheme.count)
        let (location, query) = rest.firstIndex(of: "?").map { (rest[..<$0], Optional(rest[rest.index(after: $0)...])) } ?? (rest, nil)
        guard let slash = location.firstIndex(of: "/") else { throw refuse("it has no PATH after the remote's name") }
        let remote = String(location[..<slash])
        if let problem = RemoteName.problem(with: remote) { throw refuse(problem) }
        guard let path = Self.percentDecoded(location[location.index(after: slash)...]) else {
            throw refuse("the path has a bad percent-encoding (% must start %XX, of UTF-8)")
        }
        if let problem = KVPath.problem(with: path) { throw refuse(problem) }
        if path.hasSuffix("/") { throw refuse("it names a folder; 'vaultctl list \(RemoteTarget.scheme)\(remote)/\(path)' lists it") }
        var field: String?
        var version: Int?
        if let query {
            guard !query.isEmpty else { throw refuse("the query after '?' is empty") }
            for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
                let key = pair.prefix { $0 != "=" }
                let value = pair.count > key.count + 1 ? Self.percentDecoded(pair.dropFirst(key.count + 1)) : nil
                switch key {
                case "field":
                    guard field == nil else { throw refuse("field is given twice") }
                    guard let value, !value.isEmpty, ItemKey.problem(with: value, field: "field") == nil else {
                        throw refuse("field needs a name: ?field=NAME, percent-encoded, without control characters")
                    }
                    field = value
                case "version":
                    guard version == nil else { throw refuse("version is given twice") }
                    guard let value, let number = Int(value), number > 0, String(number) == value else { throw refuse("version needs a positive number: &version=N") }
                    version = number
                default:
                    throw refuse(key.isEmpty ? "the query has an empty part" : "'\(Self.shown(String(key), quoted: false))' is not a query key; only field=FIELD and version=N are")
                }
            }
        }
        self.init(text: text, service: RemoteTarget.scheme + remote, account: path, field: field,
                  remote: RemoteTarget(remote: remote, path: path, version: version))
    }
}
