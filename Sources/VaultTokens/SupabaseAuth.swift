import Foundation
import VaultCore

/// Supabase Auth (GoTrue) at `{project URL}/auth/v1`: JSON requests with the project's API key,
/// the newer error shape requested (`X-Supabase-Api-Version`), the legacy one understood too.
public struct SupabaseAuth: Sendable {
    public let http: HTTPClient
    public let projectURL: String
    public let apiKey: String

    /// Error codes that mean the refresh token is dead: sign in again.
    static let signInAgainCodes: Set<String> = ["refresh_token_not_found", "refresh_token_already_used", "session_not_found", "session_expired", "user_banned"]

    public init(http: HTTPClient, projectURL: String, apiKey: String) {
        self.http = http
        self.projectURL = projectURL.hasSuffix("/") ? String(projectURL.dropLast()) : projectURL
        self.apiKey = apiKey
    }

    public var tokenEndpoint: String { projectURL + "/auth/v1/token" }

    public func signIn(email: String, password: SecretBytes) -> TokenOutcome {
        post("/token?grant_type=password", ["email": email, "password": password.utf8String ?? ""], bearer: nil)
    }

    public func refresh(_ refreshToken: String) -> TokenOutcome {
        post("/token?grant_type=refresh_token", ["refresh_token": refreshToken], bearer: nil)
    }

    public enum SignUpOutcome: Sendable {
        case signedIn(TokenGrant)
        /// Email confirmation is on: no session until the user follows the link.
        case confirmationSent
        case failed(TokenOutcome)
    }

    public func signUp(email: String, password: SecretBytes) -> SignUpOutcome {
        switch send("/signup", ["email": email, "password": password.utf8String ?? ""], bearer: nil) {
        case .success(let object):
            if let grant = TokenGrant.parse(object) { return .signedIn(grant) }
            return object["id"] != nil || object["email"] != nil ? .confirmationSent
                : .failed(.malformed("Supabase's sign-up answer has neither a session nor a user"))
        case .failure(let outcome):
            return .failed(outcome)
        }
    }

    /// Sends the password reset email.
    public func recover(email: String) -> TokenOutcome? {
        if case .failure(let outcome) = send("/recover", ["email": email], bearer: nil) { return outcome }
        return nil
    }

    /// Signs this session out on the server (`scope=local`: this session only).
    public func logout(accessToken: String) -> TokenOutcome? {
        if case .failure(let outcome) = send("/logout?scope=local", [:], bearer: accessToken) { return outcome }
        return nil
    }

    private func post(_ path: String, _ body: [String: String], bearer: String?) -> TokenOutcome {
        switch send(path, body, bearer: bearer) {
        case .success(let object):
            guard let grant = TokenGrant.parse(object), grant.refreshToken != nil else {
                return .malformed("Supabase's answer has no access_token or refresh_token")
            }
            return .granted(grant)
        case .failure(let outcome):
            return outcome
        }
    }

    private enum Answer {
        case success([String: Any])
        case failure(TokenOutcome)
    }

    private func send(_ path: String, _ body: [String: String], bearer: String?) -> Answer {
        guard let url = URL(string: projectURL + "/auth/v1" + path) else { return .failure(.malformed("the Supabase URL is not valid")) }
        let headers = [
            "apikey": apiKey, "Authorization": "Bearer " + (bearer ?? apiKey), "Content-Type": "application/json",
            "Accept": "application/json", "X-Supabase-Api-Version": "2024-01-01",
        ]
        let data = try? JSONSerialization.data(withJSONObject: body)
        switch http.send("POST", url, headers: headers, body: data) {
        case .failed(let message):
            return .failure(.temporary("cannot reach Supabase: \(message)"))
        case .response(let status, let data):
            if (200..<300).contains(status) {
                if data.isEmpty { return .success([:]) }
                guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                    return .failure(.malformed("Supabase answered HTTP \(status) with something that is not JSON"))
                }
                return .success(object)
            }
            if status >= 500 { return .failure(.temporary("Supabase answered HTTP \(status)")) }
            let object = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            // New shape {"code":"...","message":"..."}; legacy {"code":400,"error_code":"...","msg":"..."}.
            let code = (object["code"] as? String) ?? (object["error_code"] as? String) ?? (status == 429 ? "over_request_rate_limit" : "http_\(status)")
            let serverMessage = (object["message"] as? String) ?? (object["msg"] as? String) ?? ""
            if status == 429 || code.hasPrefix("over_") { return .failure(.temporary("too many attempts: wait a while and try again")) }
            if object.isEmpty && status != 401 { return .failure(.malformed("Supabase answered HTTP \(status) with something that is not JSON")) }
            return .failure(.rejected(code: code, message: Self.sentence(for: code, serverMessage: serverMessage)))
        }
    }

    /// Server error codes as plain sentences.
    static func sentence(for code: String, serverMessage: String) -> String {
        switch code {
        case "invalid_credentials": "wrong email or password"
        case "email_not_confirmed": "the email address is not confirmed yet: follow the link in the confirmation email, then sign in"
        case "user_already_exists", "email_exists": "a user with this email already exists: sign in instead (or reset the password)"
        case "weak_password": "the password is too weak" + (serverMessage.isEmpty ? "" : ": \(serverMessage)")
        case "email_address_invalid": "the email address is not valid"
        case "refresh_token_already_used", "refresh_token_not_found", "session_not_found", "session_expired":
            "the session is no longer valid (\(code))"
        case "user_banned": "this user is banned"
        default: serverMessage.isEmpty ? code : "\(serverMessage) (\(code))"
        }
    }
}
