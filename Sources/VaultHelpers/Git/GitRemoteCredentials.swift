import VaultCore

/// git-credential-vault's credentials in a team's engine (`--remote REMOTE/FOLDER`, or
/// `VAULT_GIT_REMOTE`): one secret per URL and username, `FOLDER/URL/USERNAME` (`RemoteFolder`
/// encodes each), with fields `password` and, when git sent them, `password_expiry_utc` and
/// `oauth_refresh_token`. The same rules as local items: a password past its expiry is not
/// given, `store` of what `get` answered keeps what was stored with it, `erase` forgets only the
/// password git rejected.
struct GitRemoteCredentials {
    let credentials: RemoteCredentials

    static let password = "password"
    static let expiry = "password_expiry_utc"
    static let refreshToken = "oauth_refresh_token"

    func get(_ credential: GitCredential, url: String) throws(HelperFailure) -> GitReply {
        let username: String
        if let given = try credential.checkedUsername() {
            username = given
        } else {
            let kept = try credentials.names(under: [url])
            guard kept.count <= 1 else {
                return .notice("\(kept.count) credentials are kept for \(url) in remote '\(credentials.folder.remote)'; set credential.username to choose one")
            }
            guard let only = kept.first else { return .nothing }
            username = only
        }
        guard let fields = try credentials.fields([url, username]), let stored = Self.stored(fields) else { return .nothing }
        guard !stored.password.withUnsafeBytes({ $0.contains(0) || $0.contains(10) || $0.contains(13) }) else {
            return .notice("the password kept for \(url) in remote '\(credentials.folder.remote)' holds a line break or NUL, which git cannot take; not used")
        }
        return stored.isExpired() ? .nothing : .lines(GitAnswer.password(stored, username: username))
    }

    func store(_ credential: GitCredential, url: String, username: String, password: SecretBytes) throws(HelperFailure) {
        guard let passwordText = password.utf8String else { throw HelperFailure("the password is not UTF-8 text; nothing was stored") }
        var fields = [Self.password: passwordText]
        var expiry = credential.passwordExpiry
        var refreshToken = credential.refreshToken?.utf8String
        if let kept = try credentials.fields([url, username]), kept[Self.password] == passwordText {
            // What `get` returned (git before 2.41 drops the expiry and refresh token): keep them.
            expiry = expiry ?? kept[Self.expiry].flatMap { Int64($0) }
            refreshToken = refreshToken ?? kept[Self.refreshToken]
        }
        if let expiry { fields[Self.expiry] = String(expiry) }
        if let refreshToken { fields[Self.refreshToken] = refreshToken }
        try credentials.write([url, username], fields)
    }

    /// Forgets the credential git rejected: only when the kept password is the one git sent;
    /// without a username, every credential of the URL by that rule.
    func erase(_ credential: GitCredential, url: String) throws(HelperFailure) {
        let usernames = if let username = try credential.checkedUsername() { [username] } else { try credentials.names(under: [url]) }
        let rejected = credential.password?.utf8String
        for username in usernames {
            guard let fields = try credentials.fields([url, username]) else { continue }
            if let rejected, fields[Self.password] != rejected { continue }
            try credentials.delete([url, username])
        }
    }

    /// The credential kept in `fields`; nil without a password.
    static func stored(_ fields: [String: String]) -> GitStoredCredential? {
        guard let password = fields[password] else { return nil }
        return GitStoredCredential(password: SecretBytes(utf8: password), expiry: fields[expiry].flatMap { Int64($0) },
                                   refreshToken: fields[refreshToken].map { SecretBytes(utf8: $0) })
    }
}
