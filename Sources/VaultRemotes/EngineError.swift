import VaultCore

/// What went wrong talking to a remote engine, before it is put in a user's words
/// (`explained`). No case carries a token or a secret: the engine's own error text is kept only
/// after `sanitized` (one line, bounded, no control characters).
public enum EngineError: Error, Equatable, Sendable {
    /// No answer: refused, reset, timed out, TLS failed.
    case unreachable(String)
    /// 503: sealed, or not yet initialised.
    case sealed
    /// 429 from a standby or a rate limit, 502/504 from a proxy: try again.
    case busy(Int)
    /// 403: the token is not (or no longer) allowed this; `errors` from the engine.
    case forbidden(String)
    /// 404: nothing there; `deleted` is the RFC 3339 deletion time of a soft-deleted version,
    /// `version` its number, when the engine said.
    case notFound(deleted: String?, version: Int?)
    /// 400 "check-and-set parameter did not match the current version".
    case checkAndSet
    /// Another 4xx, with the engine's reason.
    case rejected(Int, String)
    /// A redirect, which vault never follows: a standby pointing at its active node (during a
    /// failover, at one that is gone), or a proxy.
    case redirect(Int)
    /// An answer that is not what the API promises (malformed JSON, missing fields, over a cap).
    case malformed(String)
    /// Another 5xx.
    case server(Int)

    /// Whether a cached copy may stand in: the engine could not answer for now (a standby's
    /// redirect while no node is active is one such answer).
    public var isOffline: Bool {
        switch self {
        case .unreachable, .sealed, .busy, .server, .redirect: true
        default: false
        }
    }

    /// The error for the user, about the remote `name` at `url`, for `what` (a reference, "logging in").
    public func explained(remote name: String, url: String, doing what: String) -> VaultError {
        switch self {
        case .unreachable(let why):
            .unavailable("remote '\(name)' (\(url)) cannot be reached while \(what): \(why)")
        case .sealed:
            .unavailable("remote '\(name)' (\(url)) is sealed or not initialised (HTTP 503) while \(what): unseal it ('bao operator unseal') and try again")
        case .busy(let status):
            .unavailable("remote '\(name)' (\(url)) is busy or a standby (HTTP \(status)) while \(what): try again shortly")
        case .forbidden(let why):
            .permissionDenied("remote '\(name)' refused \(what) (HTTP 403\(why.isEmpty ? "" : ": \(why)")): the engine's policies for vaultd's token do not allow it; ask its operator, or 'vaultctl remote login \(name)'")
        case .notFound(let deleted?, let version):
            .absent("\(what): version \(version.map(String.init) ?? "latest") was deleted at \(deleted); 'bao kv undelete' restores it, or read an older one with &version=N")
        case .notFound(nil, _):
            .absent("\(what): remote '\(name)' has no secret there")
        case .checkAndSet:
            .conflict("\(what): the secret changed on remote '\(name)' since the version this write was based on")
        case .rejected(let status, let why):
            .invalidInput("remote '\(name)' rejected \(what) (HTTP \(status)\(why.isEmpty ? "" : ": \(why)"))")
        case .redirect(let status):
            .unavailable("remote '\(name)' answered \(what) with a redirect (HTTP \(status)): a standby node pointing at its active node (during a failover, try again shortly) or a proxy; vault does not follow redirects, so its token never goes to another address")
        case .malformed(let why):
            .unavailable("remote '\(name)' gave an answer vault cannot use while \(what): \(why)")
        case .server(let status):
            .unavailable("remote '\(name)' failed while \(what) (HTTP \(status)): try again; the engine's log says why")
        }
    }

    /// One line of at most 200 characters, control characters replaced.
    static func sanitized(_ text: String) -> String {
        let line = text.replacingControlCharacters()
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}
