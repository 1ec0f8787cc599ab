import Foundation
import VaultCore

/// What a provider answered to a sign-in or a refresh, classified.
public enum TokenOutcome: Sendable {
    case granted(TokenGrant)
    /// Refused for good (invalid_grant, refresh_token_already_used, ...): sign in again.
    /// `message` is a sentence for people.
    case rejected(code: String, message: String)
    /// Worth retrying: network failure, timeout, 5xx, 429.
    case temporary(String)
    /// An answer that makes no sense (HTML, missing fields): not retried, not a sign-in.
    case malformed(String)
}

public struct TokenGrant: Sendable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Double?
    public var expiresAt: Double?
    public var refreshToken: String?
    public var scope: String?
    public var userID: String?
    public var email: String?

    /// Reads the common token fields from a JSON object (OAuth 2.0 §5.1, Supabase, Firebase's
    /// securetoken), each checked (`ProviderValue`): nil without an access_token, a problem
    /// naming the field when a value is unusable. `expires_in` may be a number or a string.
    static func parse(_ object: [String: Any]) throws(ProviderValue.Problem) -> TokenGrant? {
        guard let access = try ProviderValue.token(object["access_token"], field: "access_token") else { return nil }
        let user: [String: Any]?
        switch object["user"] {
        case nil, is NSNull: user = nil
        case let value as [String: Any]: user = value
        default: throw ProviderValue.Problem(field: "user", problem: "is not an object")
        }
        return TokenGrant(
            accessToken: access, tokenType: try ProviderValue.tokenType(object["token_type"], field: "token_type") ?? "Bearer",
            expiresIn: try ProviderValue.seconds(object["expires_in"], field: "expires_in", within: ProviderValue.lifetimes),
            expiresAt: try ProviderValue.seconds(object["expires_at"], field: "expires_at", within: ProviderValue.unixTimes),
            refreshToken: try ProviderValue.token(object["refresh_token"], field: "refresh_token"),
            scope: try ProviderValue.text(object["scope"], field: "scope", limit: ProviderValue.maximumLongTextLength),
            userID: try ProviderValue.text(user?["id"], field: "user.id"),
            email: try ProviderValue.text(user?["email"], field: "user.email"))
    }

    /// A provider's success answer as an outcome: granted when every value checks out,
    /// otherwise malformed with the field named (`source` says whose answer it was).
    static func outcome(_ object: [String: Any], from source: String, needsRefreshToken: Bool = false) -> TokenOutcome {
        do {
            guard let grant = try parse(object) else { return .malformed("\(source)'s answer has no access_token") }
            if needsRefreshToken && grant.refreshToken == nil { return .malformed("\(source)'s answer has no refresh_token") }
            return .granted(grant)
        } catch {
            return .malformed("\(source)'s answer is not usable: \(error)")
        }
    }
}

/// OAuth 2.0 token endpoints (RFC 6749): form-encoded POSTs, client authentication with HTTP
/// Basic when there is a client secret, errors per §5.2.
public struct TokenEndpointClient: Sendable {
    public var http: any HTTPTransport

    public init(http: any HTTPTransport = HTTPClient()) { self.http = http }

    /// A token request, classified: the §5.2 errors that refuse the request (`invalid_grant`,
    /// `invalid_client`, ...) are `.rejected`; whether a refusal means "sign in again" is the
    /// caller's decision (`TokenOutcome.signingInAgain(only:)`).
    public func request(endpoint: String, form: [(String, String)], clientID: String?, clientSecret: String?) -> TokenOutcome {
        switch post(endpoint: endpoint, form: form, clientID: clientID, clientSecret: clientSecret) {
        case .failure(let outcome):
            return outcome
        case .error(let code, let description, let status):
            if ["invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope"].contains(code) {
                return .rejected(code: code, message: description.isEmpty ? code : "\(code): \(description)")
            }
            return .malformed("the token endpoint answered HTTP \(status), error '\(code)'")
        case .success(let object):
            return TokenGrant.outcome(object, from: "the token endpoint")
        }
    }

    /// An OAuth 2.0 endpoint's answer: a JSON object, an error per §5.2, or a failure to get either.
    enum Answer {
        case success([String: Any])
        case error(code: String, description: String, status: Int)
        case failure(TokenOutcome)
    }

    /// A form-encoded POST with client authentication (§2.3.1: HTTP Basic with a secret,
    /// `client_id` in the body without one).
    func post(endpoint: String, form: [(String, String)], clientID: String?, clientSecret: String?) -> Answer {
        guard let url = URL(string: endpoint) else { return .failure(.malformed("\(endpoint) is not a URL")) }
        var headers = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        var fields = form
        if let clientID, let clientSecret {
            let credentials = Self.formEncode(clientID) + ":" + Self.formEncode(clientSecret)
            headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
        } else if let clientID {
            fields.append(("client_id", clientID))
        }
        let body = Data(fields.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
        switch http.send("POST", url, headers: headers, body: body) {
        case .failed(let message):
            return .failure(.temporary("cannot reach the token endpoint: \(message)"))
        case .refused(let message):
            return .failure(.malformed("the token endpoint's answer is unusable: \(message)"))
        case .response(let status, let data):
            if status == 429 || status >= 500 { return .failure(.temporary("the token endpoint answered HTTP \(status)")) }
            if let redirect = HTTPClient.redirectProblem(status, from: "the token endpoint") { return .failure(.malformed(redirect)) }
            // RFC 7009 revocation answers 200 with no body.
            if (200..<300).contains(status) && data.isEmpty { return .success([:]) }
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return .failure(.malformed("the token endpoint answered HTTP \(status) with something that is not JSON"))
            }
            if status >= 400 || object["error"] != nil {
                // Provider text: one line without control characters before it enters a message.
                let code = (object["error"] as? String).map { ProviderValue.sanitized($0, limit: 64) } ?? "http_\(status)"
                return .error(code: code, description: ProviderValue.sanitized(object["error_description"] as? String ?? ""), status: status)
            }
            return .success(object)
        }
    }

    /// Revokes a refresh token (RFC 7009). Returns nil when the server confirmed: HTTP 200 (which
    /// §2.2 also answers for a token it does not know, i.e. one already invalid) or 204; otherwise
    /// why the token may still be honoured (401 `invalid_client`, `unsupported_token_type`, a
    /// proxy's page, no answer).
    public func revoke(endpoint: String, token: String, clientID: String?, clientSecret: String?) -> String? {
        let form = [("token", token), ("token_type_hint", "refresh_token")]
        switch post(endpoint: endpoint, form: form, clientID: clientID, clientSecret: clientSecret) {
        case .success:
            return nil
        case .error("invalid_token", _, _):
            // Not what §2.2 prescribes (it answers 200), but it says the token is invalid already.
            return nil
        case .error(let code, let description, let status):
            return "the revocation endpoint answered HTTP \(status), error '\(code)'" + (description.isEmpty ? "" : ": \(description)")
        case .failure(let outcome):
            return outcome.summary
        }
    }

    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
