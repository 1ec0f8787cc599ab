#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultClient
import VaultCore

/// The lines `get` prints, built into one buffer the caller writes and wipes.
enum GitAnswer {
    /// `username=`, `password=` and what was stored with them.
    static func password(_ stored: GitStoredCredential, username: String) -> [UInt8] {
        var lines: [UInt8] = []
        lines.reserveCapacity(256 + username.utf8.count + stored.password.count + (stored.refreshToken?.count ?? 0))
        append("username", username, to: &lines)
        append("password", stored.password, to: &lines)
        if let expiry = stored.expiry { append("password_expiry_utc", String(expiry), to: &lines) }
        if let refreshToken = stored.refreshToken { append("oauth_refresh_token", refreshToken, to: &lines) }
        return lines
    }

    /// A linked session's access token: as a Bearer credential when git offered
    /// `capability[]=authtype` (the gated lines after the capability line, and `ephemeral=true`
    /// so git does not ask to store it), else as the password of git's username (or the
    /// session's account), with its expiry either way. nil for a token with a newline or NUL,
    /// which would let the provider add lines of its own.
    static func token(_ token: AccessToken, for credential: GitCredential) -> [UInt8]? {
        guard !token.accessToken.utf8.contains(where: { $0 == 0 || $0 == 10 || $0 == 13 }) else { return nil }
        var lines: [UInt8] = []
        lines.reserveCapacity(256 + token.account.utf8.count + (credential.username?.utf8.count ?? 0) + token.accessToken.utf8.count)
        let secret = SecretBytes(utf8: token.accessToken)
        if credential.offers("authtype") {
            append("capability[]", "authtype", to: &lines)
            append("authtype", "Bearer", to: &lines)
            append("credential", secret, to: &lines)
            append("ephemeral", "true", to: &lines)
        } else {
            append("username", credential.username.flatMap { $0.isEmpty ? nil : $0 } ?? token.account, to: &lines)
            append("password", secret, to: &lines)
        }
        if let expiresAt = token.expiresAt {
            append("password_expiry_utc", String(Int64(expiresAt.timeIntervalSince1970.rounded(.down))), to: &lines)
        }
        return lines
    }

    private static func append(_ key: String, _ value: String, to lines: inout [UInt8]) {
        append(key, SecretBytes(utf8: value), to: &lines)
    }

    private static func append(_ key: String, _ value: SecretBytes, to lines: inout [UInt8]) {
        lines.append(contentsOf: Array(key.utf8))
        lines.append(UInt8(ascii: "="))
        value.withUnsafeBytes { lines.append(contentsOf: $0) }
        lines.append(UInt8(ascii: "\n"))
    }
}
