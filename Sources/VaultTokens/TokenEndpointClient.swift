import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VaultCore

/// POSTs form-encoded requests to an OAuth 2.0 token endpoint (RFC 6749) and classifies answers.
/// TLS verification stays on (URLSession's default); every request has a timeout. Blocking: call
/// from a thread that may block (vaultd's connection threads), never the cooperative pool.
public struct TokenEndpointClient: Sendable {
    public var timeout: Double

    public init(timeout: Double = 10) { self.timeout = timeout }

    /// What a token endpoint answered.
    public enum Outcome: Sendable {
        case granted(Grant)
        /// The provider refused the grant for good (invalid_grant, ...): sign in again.
        case rejected(code: String, description: String)
        /// Worth retrying: network failure, timeout, 5xx, 429.
        case temporary(String)
        /// An answer that makes no sense (HTML, missing fields): not retried, not a sign-in.
        case malformed(String)
    }

    public struct Grant: Sendable {
        public var accessToken: String
        public var tokenType: String
        public var expiresIn: Double?
        public var refreshToken: String?
        public var scope: String?
    }

    public func request(endpoint: String, form: [(String, String)], clientID: String?, clientSecret: String?) -> Outcome {
        guard let url = URL(string: endpoint) else { return .malformed("the token endpoint is not a URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        var fields = form
        if let clientID, let clientSecret {
            // RFC 6749 §2.3.1: HTTP Basic with the form-encoded id and secret.
            let credentials = Self.formEncode(clientID) + ":" + Self.formEncode(clientSecret)
            request.setValue("Basic " + Data(credentials.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        } else if let clientID {
            fields.append(("client_id", clientID))
        }
        request.httpBody = Data(fields.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)

        let box = ResponseBox()
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout + 2) == .timedOut {
            task.cancel()
            return .temporary("the token endpoint did not answer within \(Int(timeout)) s")
        }
        let (data, status, error) = box.get()
        if let error { return .temporary("cannot reach the token endpoint: \((error as NSError).localizedDescription)") }
        guard let status else { return .temporary("no HTTP response from the token endpoint") }
        let body = data ?? Data()
        if status == 429 || status >= 500 { return .temporary("the token endpoint answered HTTP \(status)") }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return .malformed("the token endpoint answered HTTP \(status) with something that is not JSON")
        }
        if status >= 400 || object["error"] != nil {
            let code = object["error"] as? String ?? "http_\(status)"
            let description = object["error_description"] as? String ?? ""
            if ["invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type"].contains(code) {
                return .rejected(code: code, description: description)
            }
            return .malformed("the token endpoint answered HTTP \(status), error '\(code)'")
        }
        guard let access = object["access_token"] as? String, !access.isEmpty else {
            return .malformed("the token endpoint's answer has no access_token")
        }
        var expiresIn: Double?
        if let number = object["expires_in"] as? Double { expiresIn = number }
        if let text = object["expires_in"] as? String { expiresIn = Double(text) }
        return .granted(Grant(
            accessToken: access, tokenType: object["token_type"] as? String ?? "Bearer", expiresIn: expiresIn,
            refreshToken: object["refresh_token"] as? String, scope: object["scope"] as? String))
    }

    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    private final class ResponseBox: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?, status: Int?, error: Error?
        func set(data: Data?, status: Int?, error: Error?) { lock.withLock { (self.data, self.status, self.error) = (data, status, error) } }
        func get() -> (Data?, Int?, Error?) { lock.withLock { (data, status, error) } }
    }
}
