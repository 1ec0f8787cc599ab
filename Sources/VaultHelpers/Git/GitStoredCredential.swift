import VaultCore

/// The secret of a git credential item, in git-credential-libsecret's layout: the password, then
/// optional `password_expiry_utc=N` and `oauth_refresh_token=T` lines. git values never hold a
/// newline, so the layout is unambiguous, and `vaultctl get` shows the password on its first line.
struct GitStoredCredential: Equatable {
    var password: SecretBytes
    var expiry: Int64?
    var refreshToken: SecretBytes?

    private static let expiryKey = Array("password_expiry_utc=".utf8)
    private static let refreshKey = Array("oauth_refresh_token=".utf8)

    init(password: SecretBytes, expiry: Int64?, refreshToken: SecretBytes?) {
        self.password = password
        self.expiry = expiry
        self.refreshToken = refreshToken
    }

    /// Reads a stored secret; lines it does not know are ignored (a later version may add some).
    init(secret: SecretBytes) {
        var password = SecretBytes.empty
        var expiry: Int64?
        var refreshToken: SecretBytes?
        secret.withUnsafeBytes { bytes in
            let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            password = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: lines[0]))
            for line in lines.dropFirst() {
                if line.starts(with: Self.expiryKey) {
                    expiry = Int64(String(decoding: line.dropFirst(Self.expiryKey.count), as: UTF8.self))
                } else if line.starts(with: Self.refreshKey) {
                    refreshToken = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: line.dropFirst(Self.refreshKey.count)))
                }
            }
        }
        self.init(password: password, expiry: expiry, refreshToken: refreshToken)
    }

    /// The item's secret.
    var secret: SecretBytes {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(password.count + (refreshToken?.count ?? 0) + 64)
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        password.withUnsafeBytes { bytes.append(contentsOf: $0) }
        if let expiry { bytes.append(contentsOf: Array("\npassword_expiry_utc=\(expiry)".utf8)) }
        if let refreshToken {
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: Self.refreshKey)
            refreshToken.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
        return bytes.withUnsafeBytes { SecretBytes(copying: $0) }
    }

    /// True when the password's expiry time has passed (git 2.41+ would discard it too).
    func isExpired(now: Int64 = Clock.nowMilliseconds() / 1000) -> Bool {
        guard let expiry else { return false }
        return expiry <= now
    }
}
