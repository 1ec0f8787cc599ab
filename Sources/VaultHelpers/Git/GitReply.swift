import VaultClient
import VaultCore

/// What `get` does with vault's answer (`GitReply.to`): print lines for git on stdout (the
/// caller writes and wipes them), say something on stderr and give git nothing, or give nothing.
enum GitReply: Equatable {
    case lines([UInt8])
    case notice(String)
    case nothing

    /// The reply to `resolved`, for `credential` (whose URL is `url`); `session` names the linked
    /// session a token came from. A password past its expiry is not given; git-credential-libsecret's
    /// item is another program's, so one without a user, or whose secret holds a NUL or carriage
    /// return (which would break git's protocol), is not given either.
    static func to(
        _ resolved: ResolvedCredential, for credential: GitCredential, url: String, session: String?,
        now: Int64 = Clock.nowMilliseconds() / 1000
    ) throws(HelperFailure) -> GitReply {
        switch resolved {
        case .token(let token):
            guard let lines = GitAnswer.token(token, for: credential) else {
                throw HelperFailure("the access token of vault session '\(session ?? token.account)' holds a line break or NUL, so it cannot be given to git")
            }
            return .lines(lines)
        case .item(let item):
            return password(GitStoredCredential(secret: item.secret), user: item.metadata.account, now: now)
        case .foreign(let item, let secret):
            guard let user = item.attributes["user"] else { return .nothing }
            guard !secret.withUnsafeBytes({ $0.contains(0) || $0.contains(13) }) else {
                return .notice("the git-credential-libsecret item for \(url) holds a NUL or carriage return, which git cannot take; not used")
            }
            return password(GitStoredCredential(secret: secret), user: user, now: now)
        case .ambiguous(let amongOwnItems, let count):
            let kept = amongOwnItems ? "credentials" : "git-credential-libsecret credentials"
            return .notice("\(count) \(kept) are kept for \(url); set credential.username to choose one")
        case .nothing:
            return .nothing
        }
    }

    private static func password(_ stored: GitStoredCredential, user: String, now: Int64) -> GitReply {
        stored.isExpired(now: now) ? .nothing : .lines(GitAnswer.password(stored, username: user))
    }
}
