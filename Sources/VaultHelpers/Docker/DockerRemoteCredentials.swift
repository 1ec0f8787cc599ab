import VaultCore

/// docker-credential-vault's credentials in a team's engine (`VAULT_DOCKER_REMOTE=REMOTE/FOLDER`):
/// one secret per server URL, `FOLDER/SERVER_URL` (`RemoteFolder` encodes it), with fields
/// `username` and `secret`, written together in one version.
struct DockerRemoteCredentials {
    let credentials: RemoteCredentials

    static let username = "username"
    static let secret = "secret"

    func store(serverURL: String, username: String, secret: String) throws(HelperFailure) {
        try credentials.write([serverURL], [Self.username: username, Self.secret: secret])
    }

    /// The username and secret kept for `serverURL`; nil when none is.
    func get(serverURL: String) throws(HelperFailure) -> (username: String, secret: SecretBytes)? {
        guard let fields = try credentials.fields([serverURL]), let secret = fields[Self.secret] else { return nil }
        return (fields[Self.username] ?? "", SecretBytes(utf8: secret))
    }

    /// False when nothing was kept for `serverURL`.
    func erase(serverURL: String) throws(HelperFailure) -> Bool {
        guard try credentials.fields([serverURL]) != nil else { return false }
        return try credentials.delete([serverURL])
    }

    /// (server URL, username) of every credential kept in the folder.
    func list() throws(HelperFailure) -> [(String, String)] {
        var found: [(String, String)] = []
        for serverURL in try credentials.names(under: []) {
            guard let fields = try credentials.fields([serverURL]), fields[Self.secret] != nil else { continue }
            found.append((serverURL, fields[Self.username] ?? ""))
        }
        return found
    }
}
