import Foundation
import VaultCore

/// Firebase Auth: `identitytoolkit` for sign-in, sign-up and reset email, `securetoken` for
/// refresh. `emulatorBase` (e.g. http://127.0.0.1:9099) serves both under their host names as
/// path prefixes, as the official emulator does; without it the production hosts are used.
/// Firebase's REST API has no server-side sign-out: signing out forgets the session locally.
public struct FirebaseProvider: SignInProvider {
    public static let kind = ProviderKind.firebase
    public let http: any HTTPTransport
    public let apiKey: String
    public let emulatorBase: String?

    /// securetoken's refresh errors that mean the session is over: sign in again.
    public static let signInAgainCodes: Set<String> = ["INVALID_REFRESH_TOKEN", "TOKEN_EXPIRED", "USER_NOT_FOUND", "USER_DISABLED"]

    public init(transport: any HTTPTransport, apiKey: String, emulatorBase: String?) {
        self.http = transport
        self.apiKey = apiKey
        self.emulatorBase = emulatorBase.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    public init(settings: ProviderSettings, transport: any HTTPTransport) throws {
        guard case .firebase(let firebase) = settings else { throw ProviderRegistry.mismatch(settings, expected: Self.kind) }
        if let base = firebase.emulatorURL { try SessionRecord.checkEndpoint(base, name: "url") }
        self.init(transport: transport, apiKey: firebase.apiKey, emulatorBase: firebase.emulatorURL)
    }

    public init(record: SessionRecord, transport: any HTTPTransport) throws {
        try Self.checkImported(record)
        self.init(transport: transport, apiKey: record.apiKey ?? "", emulatorBase: record.projectURL)
    }

    public static func defaultTokenEndpoint(projectURL: String?) -> String? {
        (projectURL.map { $0 + "/securetoken.googleapis.com" } ?? "https://securetoken.googleapis.com") + "/v1/token"
    }

    public static func checkImported(_ record: SessionRecord) throws {
        if record.apiKey == nil { throw VaultError.invalidInput("a firebase session needs api_key") }
    }

    public var defaultService: String? { nil }

    var identityBase: String { (emulatorBase.map { $0 + "/identitytoolkit.googleapis.com" } ?? "https://identitytoolkit.googleapis.com") + "/v1" }
    public var tokenEndpoint: String { Self.defaultTokenEndpoint(projectURL: emulatorBase)! }

    public func signIn(user email: String, password: SecretBytes) throws -> SessionRecord {
        try account("accounts:signInWithPassword", email: email, password: password).session(from: template(email: email), doing: "sign in")
    }

    public func signUp(user email: String, password: SecretBytes) throws -> SignUpResult {
        .signedIn(try account("accounts:signUp", email: email, password: password).session(from: template(email: email), doing: "sign up"))
    }

    public func sendPasswordReset(email: String) throws {
        if case .failure(let outcome) = post(identityBase + "/accounts:sendOobCode", json: ["requestType": "PASSWORD_RESET", "email": email]) {
            throw outcome.error(doing: "request a password reset")
        }
    }

    /// Nothing to do on the server: Firebase ID tokens expire by themselves.
    public func signOut(_ record: SessionRecord) throws -> Bool { false }

    public func refresh(_ record: SessionRecord, refreshToken: String) -> TokenOutcome {
        guard let url = URL(string: tokenEndpoint + "?key=" + TokenEndpointClient.formEncode(apiKey)) else { return .malformed("bad Firebase URL") }
        let body = Data("grant_type=refresh_token&refresh_token=\(TokenEndpointClient.formEncode(refreshToken))".utf8)
        switch classify(http.send("POST", url, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)) {
        case .success(let object):
            // securetoken: access_token (= id_token), expires_in as a string, refresh_token, user_id.
            var common = object
            common["user"] = object["user_id"].map { ["id": $0] }
            return TokenGrant.outcome(common, from: "Firebase")
        case .failure(let outcome):
            return outcome.signingInAgain(only: Self.signInAgainCodes, from: "Firebase")
        }
    }

    /// A session of this project before its first tokens.
    private func template(email: String) -> SessionRecord {
        .beforeSignIn(provider: Self.kind, tokenEndpoint: tokenEndpoint, projectURL: emulatorBase, apiKey: apiKey, email: email)
    }

    private func account(_ method: String, email: String, password: SecretBytes) -> TokenOutcome {
        switch post(identityBase + "/" + method, json: ["email": email, "password": password.utf8String ?? "", "returnSecureToken": true]) {
        case .success(let object):
            guard object["idToken"] != nil, object["refreshToken"] != nil else { return .malformed("Firebase's answer has no idToken or refreshToken") }
            // identitytoolkit's names for the common fields, checked the same way.
            var common: [String: Any] = ["access_token": object["idToken"]!, "refresh_token": object["refreshToken"]!]
            common["expires_in"] = object["expiresIn"]
            var user: [String: Any] = [:]
            user["id"] = object["localId"]
            user["email"] = object["email"]
            common["user"] = user
            return TokenGrant.outcome(common, from: "Firebase")
        case .failure(let outcome):
            return outcome
        }
    }

    private enum Answer {
        case success([String: Any])
        case failure(TokenOutcome)
    }

    private func post(_ endpoint: String, json: [String: Any]) -> Answer {
        guard let url = URL(string: endpoint + "?key=" + TokenEndpointClient.formEncode(apiKey)) else { return .failure(.malformed("bad Firebase URL")) }
        let body = try? JSONSerialization.data(withJSONObject: json)
        return classify(http.send("POST", url, headers: ["Content-Type": "application/json"], body: body))
    }

    private func classify(_ result: HTTPClient.Result) -> Answer {
        switch result {
        case .failed(let message):
            return .failure(.temporary("cannot reach Firebase: \(message)"))
        case .refused(let message):
            return .failure(.malformed("Firebase's answer is unusable: \(message)"))
        case .response(let status, let data):
            if status == 429 || status >= 500 { return .failure(.temporary("Firebase answered HTTP \(status)")) }
            if let redirect = HTTPClient.redirectProblem(status, from: "Firebase") { return .failure(.malformed(redirect)) }
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                return .failure(.malformed("Firebase answered HTTP \(status) with something that is not JSON"))
            }
            guard status >= 400 || object["error"] != nil else { return .success(object) }
            // {"error":{"code":400,"message":"CODE[ : detail]"}}
            let message = ((object["error"] as? [String: Any])?["message"] as? String) ?? "HTTP_\(status)"
            let parts = message.components(separatedBy: " : ")
            // Provider text: one line without control characters before it enters a message.
            let code = ProviderValue.sanitized(parts[0], limit: 64)
            let detail = parts.count > 1 ? ProviderValue.sanitized(parts[1]) : ""
            if code == "TOO_MANY_ATTEMPTS_TRY_LATER" { return .failure(.temporary("too many attempts: wait a while and try again")) }
            if ["MISSING_REFRESH_TOKEN", "INVALID_GRANT_TYPE"].contains(code) { return .failure(.malformed("Firebase refused the request (\(code))")) }
            return .failure(.rejected(code: code, message: Self.sentence(for: code, detail: detail)))
        }
    }

    static func sentence(for code: String, detail: String) -> String {
        switch code {
        case "EMAIL_NOT_FOUND", "INVALID_PASSWORD", "INVALID_LOGIN_CREDENTIALS": "wrong email or password"
        case "EMAIL_EXISTS": "a user with this email already exists: sign in instead (or reset the password)"
        case "USER_DISABLED": "this user has been disabled"
        case "WEAK_PASSWORD": "the password is too weak" + (detail.isEmpty ? "" : ": \(detail)")
        case "INVALID_EMAIL": "the email address is not valid"
        case "INVALID_REFRESH_TOKEN", "TOKEN_EXPIRED", "USER_NOT_FOUND": "the session is no longer valid (\(code))"
        default: detail.isEmpty ? code : "\(code): \(detail)"
        }
    }
}
