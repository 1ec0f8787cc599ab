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
    /// securetoken); `expires_in` may be a number or a string.
    static func parse(_ object: [String: Any]) -> TokenGrant? {
        guard let access = object["access_token"] as? String, !access.isEmpty else { return nil }
        func number(_ value: Any?) -> Double? { (value as? Double) ?? (value as? String).flatMap(Double.init) }
        let user = object["user"] as? [String: Any]
        return TokenGrant(
            accessToken: access, tokenType: object["token_type"] as? String ?? "Bearer",
            expiresIn: number(object["expires_in"]), expiresAt: number(object["expires_at"]),
            refreshToken: object["refresh_token"] as? String, scope: object["scope"] as? String,
            userID: user?["id"] as? String, email: user?["email"] as? String)
    }
}

/// OAuth 2.0 token endpoints (RFC 6749): form-encoded POSTs, client authentication with HTTP
/// Basic when there is a client secret, errors per §5.2.
public struct TokenEndpointClient: Sendable {
    public var http: any HTTPTransport

    public init(http: any HTTPTransport = HTTPClient()) { self.http = http }

    public func request(endpoint: String, form: [(String, String)], clientID: String?, clientSecret: String?) -> TokenOutcome {
        switch post(endpoint: endpoint, form: form, clientID: clientID, clientSecret: clientSecret) {
        case .failure(let outcome):
            return outcome
        case .error(let code, let description, let status):
            if ["invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type"].contains(code) {
                return .rejected(code: code, message: description.isEmpty ? code : "\(code): \(description)")
            }
            return .malformed("the token endpoint answered HTTP \(status), error '\(code)'")
        case .success(let object):
            guard let grant = TokenGrant.parse(object) else { return .malformed("the token endpoint's answer has no access_token") }
            return .granted(grant)
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
        case .response(let status, let data):
            if status == 429 || status >= 500 { return .failure(.temporary("the token endpoint answered HTTP \(status)")) }
            // RFC 7009 revocation answers 200 with no body.
            if (200..<300).contains(status) && data.isEmpty { return .success([:]) }
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return .failure(.malformed("the token endpoint answered HTTP \(status) with something that is not JSON"))
            }
            if status >= 400 || object["error"] != nil {
                return .error(code: object["error"] as? String ?? "http_\(status)", description: object["error_description"] as? String ?? "", status: status)
            }
            return .success(object)
        }
    }

    /// Revokes a refresh token (RFC 7009). Returns nil when it is gone (an unknown token counts),
    /// or why the server could not be asked.
    public func revoke(endpoint: String, token: String, clientID: String?, clientSecret: String?) -> String? {
        let form = [("token", token), ("token_type_hint", "refresh_token")]
        if case .failure(.temporary(let message)) = post(endpoint: endpoint, form: form, clientID: clientID, clientSecret: clientSecret) {
            return message
        }
        return nil
    }

    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
