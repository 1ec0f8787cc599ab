import VaultCore
import VaultProtocol
import VaultStores
import VaultTokens

/// Sign-in sessions: token, login, signup, reset_password, logout, import_session.
extension RequestDispatcher {
    func handleSession(_ operation: Operation, _ request: Request) throws -> ResultBody {
        switch operation {
        case .token:
            let key = try sessionKey(request)
            let token = try tokens.token(for: key, minTTL: max(0, request.minTTL ?? 60))
            return ResultBody(token: TokenBody(
                accessToken: token.accessToken, tokenType: token.tokenType,
                expiresAt: token.expiresAt.map { Timestamp.rfc3339(milliseconds: Int64($0 * 1000)) }, account: key.account))
        case .login, .signup:
            let (key, record, message) = try signIn(request, signingUp: operation == .signup)
            guard let record else { return ResultBody(message: message) }
            let info = try storeSession(key, record, label: "\(key.service) session (\(key.account))")
            logger.info("\(operation == .signup ? "signed up" : "signed in"): session for \(key)")
            return ResultBody(item: ItemBody(info, secret: nil), message: message)
        case .resetPassword:
            let email = try required(request.email, "email")
            let failure = request.provider == "firebase"
                ? try firebaseAuth(request).sendPasswordReset(email: email)
                : try supabaseAuth(request).recover(email: email)
            if let failure { throw providerError(failure, doing: "request a password reset") }
            return ResultBody(message: "if \(email) has an account, a password reset email is on its way")
        case .logout:
            let key = try sessionKey(request)
            let record = try tokens.load(key)
            try revokeOnServer(record)
            try service.perform { try $0.delete(key) }
            logger.info("signed out: session for \(key) revoked and removed")
            return ResultBody(message: "signed out of \(key.service) (\(key.account))")
        case .importSession:
            let key = try itemKey(request)
            guard let json = request.session else { throw VaultError.invalidInput("import_session needs 'session' (the session as JSON text)") }
            var settings: [String: String] = [:]
            settings["provider"] = request.provider
            settings["project_url"] = request.url
            settings["api_key"] = request.apiKey
            settings["token_endpoint"] = request.tokenEndpoint
            settings["client_id"] = request.clientID
            let record = try SessionRecord.importing(Array(json.utf8), now: Double(Clock.nowMilliseconds()) / 1000, settings: settings)
            let info = try storeSession(key, record, label: nil)
            logger.info("imported a session for \(key)")
            return ResultBody(item: ItemBody(info, secret: nil))
        case .deviceStart:
            let endpoint = try required(request.deviceEndpoint, "device_endpoint")
            try SessionRecord.checkEndpoint(endpoint)
            let codes = try DeviceAuthorization.start(
                client: tokens.client, endpoint: endpoint, clientID: request.clientID, clientSecret: request.clientSecret, scope: request.scope)
            return ResultBody(device: DeviceBody(
                deviceCode: codes.deviceCode, userCode: codes.userCode, verificationURI: codes.verificationURI,
                verificationURIComplete: codes.verificationURIComplete, expiresIn: codes.expiresIn, interval: codes.interval))
        case .devicePoll:
            let key = try ItemKey(service: try required(request.service, "service"), account: request.account ?? "default")
            var record = SessionRecord.unsigned(
                provider: "oauth2", tokenEndpoint: try required(request.tokenEndpoint, "token_endpoint"), clientID: request.clientID,
                clientSecret: request.clientSecret, scope: request.scope)
            record.revocationEndpoint = request.url
            try record.validate()
            switch DeviceAuthorization.poll(
                client: tokens.client, tokenEndpoint: record.tokenEndpoint, deviceCode: try required(request.deviceCode, "device_code"),
                clientID: record.clientID, clientSecret: record.clientSecret) {
            case .pending:
                return ResultBody(device: DeviceBody(state: "pending"))
            case .slowDown:
                return ResultBody(device: DeviceBody(state: "slow_down"))
            case .failed(let error):
                throw error
            case .granted(let grant):
                tokens.apply(grant, to: &record)
                let info = try storeSession(key, record, label: "\(key.service) session (\(key.account))")
                logger.info("signed in with a device code: session for \(key)")
                return ResultBody(item: ItemBody(info, secret: nil))
            }
        default:
            throw VaultError.internal("\(operation.rawValue) is not a session operation")
        }
    }

    /// Signs in (or up) with the request's provider; a nil record means "no session yet"
    /// (Supabase sign-up with email confirmation on), with `message` saying what to do.
    private func signIn(_ request: Request, signingUp: Bool) throws -> (ItemKey, SessionRecord?, String?) {
        let password = SecretBytes(utf8: try required(request.password, "password"))
        switch request.provider {
        case "supabase":
            let supabase = try supabaseAuth(request)
            let email = try required(request.email, "email")
            let key = try ItemKey(service: request.service ?? hostName(supabase.projectURL), account: request.account ?? email)
            var record = SessionRecord.unsigned(provider: "supabase", tokenEndpoint: supabase.tokenEndpoint)
            record.projectURL = supabase.projectURL
            record.apiKey = supabase.apiKey
            record.email = email
            let outcome: TokenOutcome
            if signingUp {
                switch supabase.signUp(email: email, password: password) {
                case .signedIn(let grant): outcome = .granted(grant)
                case .confirmationSent:
                    return (key, nil, "check \(email) for the confirmation link, then run 'vaultctl login supabase' to sign in")
                case .failed(let failure): outcome = failure
                }
            } else {
                outcome = supabase.signIn(email: email, password: password)
            }
            guard case .granted(let grant) = outcome else { throw providerError(outcome, doing: signingUp ? "sign up" : "sign in") }
            tokens.apply(grant, to: &record)
            return (key, record, nil)
        case "firebase":
            let firebase = try firebaseAuth(request)
            let email = try required(request.email, "email")
            let key = try ItemKey(service: try required(request.service, "service"), account: request.account ?? email)
            var record = SessionRecord.unsigned(provider: "firebase", tokenEndpoint: firebase.tokenEndpoint)
            record.apiKey = firebase.apiKey
            record.projectURL = firebase.emulatorBase
            record.email = email
            let outcome = signingUp ? firebase.signUp(email: email, password: password) : firebase.signIn(email: email, password: password)
            guard case .granted(let grant) = outcome else { throw providerError(outcome, doing: signingUp ? "sign up" : "sign in") }
            tokens.apply(grant, to: &record)
            return (key, record, nil)
        case "oauth2":
            guard !signingUp else { throw VaultError.invalidInput("OAuth 2.0 has no standard sign-up; sign up with the provider, then 'vaultctl login oauth2'") }
            let username = try required(request.username, "username")
            let key = try ItemKey(service: try required(request.service, "service"), account: request.account ?? username)
            var template = SessionRecord.unsigned(
                provider: "oauth2", tokenEndpoint: try required(request.tokenEndpoint, "token_endpoint"), clientID: request.clientID,
                clientSecret: request.clientSecret, scope: request.scope)
            template.revocationEndpoint = request.url
            try template.validate()
            var record = try tokens.signIn(template: template, username: username, password: password)
            record.userID = record.userID ?? username
            return (key, record, nil)
        default:
            throw VaultError.invalidInput("provider '\(request.provider ?? "")' is not supported; use oauth2, supabase or firebase")
        }
    }

    /// Revokes the session on the server where the provider supports it. A server that cannot
    /// be reached is an error and the local session is kept, so signing out can be retried.
    private func revokeOnServer(_ record: SessionRecord) throws {
        switch record.provider {
        case "supabase":
            guard let projectURL = record.projectURL, let apiKey = record.apiKey else { return }
            let supabase = SupabaseAuth(http: tokens.client.http, projectURL: projectURL, apiKey: apiKey)
            if let failure = supabase.logout(accessToken: record.accessToken) {
                // An expired or unknown session is signed out already.
                if case .rejected = failure { return }
                throw providerError(failure, doing: "sign out")
            }
        default:
            guard let endpoint = record.revocationEndpoint, let refreshToken = record.refreshToken else { return }
            if let problem = tokens.client.revoke(endpoint: endpoint, token: refreshToken, clientID: record.clientID, clientSecret: record.clientSecret) {
                throw VaultError.unavailable("could not revoke the session on the server (\(problem)); it is kept: try again, or 'vaultctl delete' it to forget it here only")
            }
        }
    }

    private func firebaseAuth(_ request: Request) throws -> FirebaseAuth {
        if let base = request.url {
            try SessionRecord.checkEndpoint(base, name: "url")
        }
        return FirebaseAuth(http: tokens.client.http, apiKey: try required(request.apiKey, "api_key"), emulatorBase: request.url)
    }

    private func storeSession(_ key: ItemKey, _ record: SessionRecord, label: String?) throws -> ItemInfo {
        try service.perform { try $0.set(key, secret: record.encoded(), changes: ItemChanges(label: label, kind: .session)) }
    }

    private func supabaseAuth(_ request: Request) throws -> SupabaseAuth {
        let url = try required(request.url, "url")
        try SessionRecord.checkEndpoint(url, name: "url")
        return SupabaseAuth(http: tokens.client.http, projectURL: url, apiKey: try required(request.apiKey, "api_key"))
    }

    private func providerError(_ outcome: TokenOutcome, doing action: String) -> VaultError {
        switch outcome {
        case .rejected(_, let message): .permissionDenied("could not \(action): \(message)")
        case .temporary(let message), .malformed(let message): .unavailable("could not \(action): \(message)")
        case .granted: .internal("unexpected success")
        }
    }

    private func required(_ value: String?, _ name: String) throws -> String {
        guard let value, !value.isEmpty else { throw VaultError.invalidInput("missing field '\(name)'") }
        return value
    }

    private func hostName(_ url: String) -> String {
        let afterScheme = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
        return afterScheme.map(String.init) ?? url
    }

    /// Background refresh (`--refresh-ahead`): every session whose token expires within `ahead`
    /// seconds is refreshed now, through the same single-flight path as `token`.
    func refreshSessions(expiringWithin ahead: Double) {
        guard let sessions = try? service.perform({ try $0.list(service: nil) }) else { return }
        for info in sessions where info.kind == .session {
            do {
                _ = try tokens.token(for: info.key, minTTL: ahead)
            } catch {
                logger.debug("background refresh of \(info.key) failed: \(error)")
            }
        }
    }

    /// An item's metadata, with a session's non-secret details for sessions.
    func describe(_ info: ItemInfo) -> ItemBody {
        var body = ItemBody(info, secret: nil)
        if info.kind == .session, let record = try? tokens.load(info.key) {
            body.session = SessionBody(
                provider: record.provider, user: record.email ?? record.userID,
                expiresAt: record.expiresAt.map { Timestamp.rfc3339(milliseconds: Int64($0 * 1000)) }, needsSignIn: record.needsSignIn)
        }
        return body
    }

    /// The session named by service and account; with no account, the service's only session.
    func sessionKey(_ request: Request) throws -> ItemKey {
        guard let serviceName = request.service else { throw VaultError.invalidInput("missing field 'service'") }
        if let account = request.account { return try ItemKey(service: serviceName, account: account) }
        let sessions = try service.perform { try $0.list(service: serviceName) }.filter { $0.kind == .session }
        guard let only = sessions.first else { throw VaultError.notFound(try ItemKey(service: serviceName, account: "(any session)")) }
        guard sessions.count == 1 else {
            throw VaultError.invalidInput("\(serviceName) has \(sessions.count) sessions (\(sessions.map(\.key.account).joined(separator: ", "))); name the account")
        }
        return only.key
    }
}
