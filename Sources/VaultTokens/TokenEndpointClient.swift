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
    public var http: HTTPClient

    public init(http: HTTPClient = HTTPClient()) { self.http = http }

    public func request(endpoint: String, form: [(String, String)], clientID: String?, clientSecret: String?) -> TokenOutcome {
        guard let url = URL(string: endpoint) else { return .malformed("the token endpoint is not a URL") }
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
            return .temporary("cannot reach the token endpoint: \(message)")
        case .response(let status, let data):
            if status == 429 || status >= 500 { return .temporary("the token endpoint answered HTTP \(status)") }
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return .malformed("the token endpoint answered HTTP \(status) with something that is not JSON")
            }
            if status >= 400 || object["error"] != nil {
                let code = object["error"] as? String ?? "http_\(status)"
                let description = object["error_description"] as? String ?? ""
                if ["invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type"].contains(code) {
                    return .rejected(code: code, message: description.isEmpty ? code : "\(code): \(description)")
                }
                return .malformed("the token endpoint answered HTTP \(status), error '\(code)'")
            }
            guard let grant = TokenGrant.parse(object) else { return .malformed("the token endpoint's answer has no access_token") }
            return .granted(grant)
        }
    }

    /// Revokes a token (RFC 7009). Success and "unknown token" both mean it is gone.
    public func revoke(endpoint: String, token: String, clientID: String?, clientSecret: String?) -> TokenOutcome {
        guard let url = URL(string: endpoint) else { return .malformed("the revocation endpoint is not a URL") }
        var headers = ["Content-Type": "application/x-www-form-urlencoded"]
        var fields = [("token", token), ("token_type_hint", "refresh_token")]
        if let clientID, let clientSecret {
            headers["Authorization"] = "Basic " + Data((Self.formEncode(clientID) + ":" + Self.formEncode(clientSecret)).utf8).base64EncodedString()
        } else if let clientID {
            fields.append(("client_id", clientID))
        }
        let body = Data(fields.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
        switch http.send("POST", url, headers: headers, body: body) {
        case .failed(let message): return .temporary(message)
        case .response(let status, _) where status >= 500 || status == 429: return .temporary("the revocation endpoint answered HTTP \(status)")
        case .response: return .granted(TokenGrant(accessToken: "-", tokenType: "", expiresIn: nil, expiresAt: nil, refreshToken: nil, scope: nil, userID: nil, email: nil))
        }
    }

    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
