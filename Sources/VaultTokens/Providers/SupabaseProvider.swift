import Foundation
import VaultCore

/// Supabase Auth (GoTrue) at `{project URL}/auth/v1`: JSON requests with the project's API key,
/// the newer error shape requested (`X-Supabase-Api-Version`), the legacy one understood too.
/// Sign-in and refresh are GoTrue's password and refresh_token grants, sign-up may wait for an
/// email confirmation, sign-out ends this session only, reset is `/recover`.
public struct SupabaseProvider: SignInProvider {
    public static let kind = ProviderKind.supabase
    public let http: any HTTPTransport
    public let projectURL: String
    public let apiKey: String

    /// GoTrue's error codes that mean the refresh token or session is over: sign in again.
    public static let signInAgainCodes: Set<String> = [
        "refresh_token_not_found", "refresh_token_already_used", "session_not_found", "session_expired", "user_banned",
    ]
    /// Sign-out error codes that say the session is gone on the server already (supabase-js
    /// also treats 401/403/404 as signed out, but an expired access token's `bad_jwt` leaves the
    /// refresh token alive, so only these codes count).
    public static let signsOutWithAccessToken = true
    public static let signedOutAlreadyCodes: Set<String> = ["session_not_found", "session_expired", "refresh_token_not_found", "user_not_found"]

    public init(transport: any HTTPTransport, projectURL: String, apiKey: String) {
        self.http = transport
        self.projectURL = projectURL.hasSuffix("/") ? String(projectURL.dropLast()) : projectURL
        self.apiKey = apiKey
    }

    public init(settings: ProviderSettings, transport: any HTTPTransport) throws {
        guard case .supabase(let supabase) = settings else { throw ProviderRegistry.mismatch(settings, expected: Self.kind) }
        try SessionRecord.checkEndpoint(supabase.projectURL, name: "url")
        self.init(transport: transport, projectURL: supabase.projectURL, apiKey: supabase.apiKey)
    }

    public init(record: SessionRecord, transport: any HTTPTransport) throws {
        try Self.checkImported(record)
        self.init(transport: transport, projectURL: record.projectURL ?? "", apiKey: record.apiKey ?? "")
    }

    public static func defaultTokenEndpoint(projectURL: String?) -> String? {
        projectURL.map { $0 + "/auth/v1/token" }
    }

    public static func checkImported(_ record: SessionRecord) throws {
        if record.projectURL == nil || record.apiKey == nil {
            throw VaultError.invalidInput("a supabase session needs project_url and api_key")
        }
    }

    public var tokenEndpoint: String { projectURL + "/auth/v1/token" }

    /// The project URL's host name: where sessions are stored when the request names no service.
    public var defaultService: String? {
        let afterScheme = projectURL.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
        return afterScheme.map(String.init) ?? projectURL
    }

    public func signIn(user email: String, password: SecretBytes) throws -> SessionRecord {
        let outcome = post("/token?grant_type=password", ["email": email, "password": password.utf8String ?? ""], bearer: nil)
        return try outcome.session(from: template(email: email), doing: "sign in")
    }

    public func signUp(user email: String, password: SecretBytes) throws -> SignUpResult {
        switch send("/signup", ["email": email, "password": password.utf8String ?? ""], bearer: nil) {
        case .success(let object):
            if object["access_token"] != nil {
                return .signedIn(try TokenGrant.outcome(object, from: "Supabase", needsRefreshToken: true).session(from: template(email: email), doing: "sign up"))
            }
            guard object["id"] != nil || object["email"] != nil else {
                throw TokenOutcome.malformed("Supabase's sign-up answer has neither a session nor a user").error(doing: "sign up")
            }
            // Email confirmation is on: no session until the user follows the link.
            return .pending("check \(email) for the confirmation link, then run 'vaultctl login supabase' to sign in")
        case .failure(let outcome):
            throw outcome.error(doing: "sign up")
        }
    }

    public func refresh(_ record: SessionRecord, refreshToken: String) -> TokenOutcome {
        post("/token?grant_type=refresh_token", ["refresh_token": refreshToken], bearer: nil)
            .signingInAgain(only: Self.signInAgainCodes, from: "Supabase")
    }

    /// Sends the password reset email.
    public func sendPasswordReset(email: String) throws {
        if case .failure(let outcome) = send("/recover", ["email": email], bearer: nil) { throw outcome.error(doing: "request a password reset") }
    }

    /// Signs this session out on the server (`scope=local`: this session only). Confirmed by 204
    /// (any 2xx), or by an error whose code says the session is gone already
    /// (`signedOutAlreadyCodes`); anything else (an expired access token's `bad_jwt`, a proxy's
    /// page) throws, so the caller keeps the session.
    public func signOut(_ record: SessionRecord) throws -> Bool {
        guard case .failure(let outcome) = send("/logout?scope=local", [:], bearer: record.accessToken) else { return true }
        if case .rejected(let code, _) = outcome, Self.signedOutAlreadyCodes.contains(code) { return true }
        throw VaultError.unavailable("could not sign out on the server: \(outcome.summary); the session is kept: try again, or 'vaultctl logout --local' to forget it here only")
    }

    /// A session of this project before its first tokens.
    private func template(email: String) -> SessionRecord {
        .beforeSignIn(provider: Self.kind, tokenEndpoint: tokenEndpoint, projectURL: projectURL, apiKey: apiKey, email: email)
    }

    private func post(_ path: String, _ body: [String: String], bearer: String?) -> TokenOutcome {
        switch send(path, body, bearer: bearer) {
        case .success(let object):
            return TokenGrant.outcome(object, from: "Supabase", needsRefreshToken: true)
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
        case .refused(let message):
            return .failure(.malformed("Supabase's answer is unusable: \(message)"))
        case .response(let status, let data):
            if let redirect = HTTPClient.redirectProblem(status, from: "Supabase") { return .failure(.malformed(redirect)) }
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
            // Provider text: one line without control characters before it enters a message.
            let code = ((object["code"] as? String) ?? (object["error_code"] as? String)).map { ProviderValue.sanitized($0, limit: 64) }
                ?? (status == 429 ? "over_request_rate_limit" : "http_\(status)")
            let serverMessage = ProviderValue.sanitized((object["message"] as? String) ?? (object["msg"] as? String) ?? "")
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
