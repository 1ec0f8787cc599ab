import Foundation
import VaultCore

/// Handing an engine credential to another machine once (response wrapping): a new token made
/// by this one, answered only as a single-use wrapping token that expires, and taken by the
/// other machine with `sys/wrapping/unwrap`. Whoever unwraps first gets the token; a second
/// unwrap fails, so a wrapping token taken on the way is noticed by the machine it was meant for.
extension EngineClient {
    /// A wrapped new token with the policies of `token`: an orphan (`auth/token/create-orphan`),
    /// so it outlives `token`; a child of it (`auth/token/create`) when the engine refuses
    /// orphans to this token. `displayName` names it in the engine's audit log.
    public func wrappedToken(by token: EngineToken, displayName: String, wrapTTL: Int) throws(EngineError) -> WrappedToken {
        let body: [String: Any] = ["display_name": displayName, "renewable": true]
        do {
            return try EngineAnswer.wrapped(try send("POST", "/v1/auth/token/create-orphan", token: token.value, json: body, wrapTTL: wrapTTL), orphan: true)
        } catch .forbidden {
            return try EngineAnswer.wrapped(try send("POST", "/v1/auth/token/create", token: token.value, json: body, wrapTTL: wrapTTL), orphan: false)
        }
    }

    /// The path whose answer `wrapping` holds (`sys/wrapping/lookup`, which does not use it up);
    /// throws `.rejected` once it was unwrapped or has expired.
    public func wrappingPath(_ wrapping: String) throws(EngineError) -> String {
        try EngineAnswer.wrappingPath(try send("POST", "/v1/sys/wrapping/lookup", token: nil, json: ["token": wrapping]))
    }

    /// Takes the token `wrapping` holds (`sys/wrapping/unwrap`): once only.
    public func unwrapToken(_ wrapping: String) throws(EngineError) -> EngineToken {
        try EngineAnswer.token(try send("POST", "/v1/sys/wrapping/unwrap", token: wrapping, json: [:]), now: clock())
    }
}

/// A wrapping token and what it wraps: a token made as an orphan, or as a child of the maker's
/// (which ends when the maker's token does).
public struct WrappedToken: Sendable, Equatable {
    public var wrapping: String
    public var orphan: Bool
}

extension EngineAnswer {
    /// A wrapped answer: `wrap_info.token` and `wrap_info.ttl`.
    static func wrapped(_ body: Data, orphan: Bool) throws(EngineError) -> WrappedToken {
        guard let info = try root(body)["wrap_info"] as? [String: Any], let token = info["token"] as? String, token.isTokenShaped,
              let ttl = number(info["ttl"]), ttl > 0 else {
            throw .malformed("the engine did not wrap its answer (no 'wrap_info' with a token and a ttl)")
        }
        return WrappedToken(wrapping: token, orphan: orphan)
    }

    /// `sys/wrapping/lookup`'s `data.creation_path`.
    static func wrappingPath(_ body: Data) throws(EngineError) -> String {
        guard let data = try root(body)["data"] as? [String: Any], let path = data["creation_path"] as? String, path.utf8.count <= 512 else {
            throw .malformed("the wrapping token's lookup has no 'creation_path'")
        }
        return EngineError.sanitized(path)
    }
}
