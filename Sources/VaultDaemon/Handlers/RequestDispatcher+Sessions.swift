import VaultCore
import VaultProtocol
import VaultStores
import VaultTokens

/// Sign-in sessions: token, login, signup, reset_password, logout, import_session, device_start,
/// device_poll.
extension RequestDispatcher {
    func token(_ request: TokenRequest) throws -> ResultBody {
        let key = try sessionKey(service: request.service, account: request.account)
        let token = try refresher.token(for: key, minTTL: request.minTTL)
        return ResultBody(token: TokenBody(
            accessToken: token.accessToken, tokenType: token.tokenType,
            expiresAt: token.expiresAt.map { Timestamp.rfc3339(milliseconds: Int64($0 * 1000)) }, account: key.account))
    }

    func signIn(_ request: SignInRequest, signingUp: Bool) throws -> ResultBody {
        let (key, record, message) = try signIn(with: request, signingUp: signingUp)
        guard let record else { return ResultBody(message: message) }
        let info = try storeSession(key, record, label: "\(key.service) session (\(key.account))")
        logger.info("\(signingUp ? "signed up" : "signed in"): session for \(key)")
        return ResultBody(item: ItemBody(info, secret: nil), message: message)
    }

    func resetPassword(_ request: ResetPasswordRequest) throws -> ResultBody {
        let failure: TokenOutcome?
        switch request.provider {
        case .firebase(let settings): failure = try firebaseAuth(settings).sendPasswordReset(email: request.email)
        case .supabase(let settings): failure = try supabaseAuth(settings).recover(email: request.email)
        case .oauth2: throw VaultError.invalidInput("OAuth 2.0 has no standard password reset; reset it with the provider")
        }
        if let failure { throw providerError(failure, doing: "request a password reset") }
        return ResultBody(message: "if \(request.email) has an account, a password reset email is on its way")
    }

    func logout(_ name: SessionName) throws -> ResultBody {
        let key = try sessionKey(service: name.service, account: name.account)
        let record = try refresher.load(key)
        try revokeOnServer(record)
        try store.perform { try $0.delete(key) }
        logger.info("signed out: session for \(key) revoked and removed")
        return ResultBody(message: "signed out of \(key.service) (\(key.account))")
    }

    func importSession(_ request: SessionImport) throws -> ResultBody {
        let key = try ItemKey(service: request.service, account: request.account)
        var settings: [String: String] = [:]
        settings["provider"] = request.defaults.provider?.rawValue
        settings["project_url"] = request.defaults.url
        settings["api_key"] = request.defaults.apiKey
        settings["token_endpoint"] = request.defaults.tokenEndpoint
        settings["client_id"] = request.defaults.clientID
        let record = try SessionRecord.importing(request.session.unprotectedBytes, now: Double(Clock.nowMilliseconds()) / 1000, settings: settings)
        let info = try storeSession(key, record, label: nil)
        logger.info("imported a session for \(key)")
        return ResultBody(item: ItemBody(info, secret: nil))
    }

    func deviceStart(_ request: DeviceStartRequest) throws -> ResultBody {
        try SessionRecord.checkEndpoint(request.deviceEndpoint)
        let codes = try DeviceAuthorization.start(
            client: refresher.client, endpoint: request.deviceEndpoint, clientID: request.clientID, clientSecret: request.clientSecret,
            scope: request.scope)
        return ResultBody(device: DeviceBody(
            deviceCode: codes.deviceCode, userCode: codes.userCode, verificationURI: codes.verificationURI,
            verificationURIComplete: codes.verificationURIComplete, expiresIn: codes.expiresIn, interval: codes.interval))
    }

    func devicePoll(_ request: DevicePollRequest) throws -> ResultBody {
        let key = try ItemKey(service: request.service, account: request.account ?? "default")
        var record = SessionRecord.beforeSignIn(oauth2: request.client)
        try record.validate()
        switch DeviceAuthorization.poll(
            client: refresher.client, tokenEndpoint: record.tokenEndpoint, deviceCode: request.deviceCode,
            clientID: record.clientID, clientSecret: record.clientSecret) {
        case .pending:
            return ResultBody(device: DeviceBody(state: "pending"))
        case .slowDown:
            return ResultBody(device: DeviceBody(state: "slow_down"))
        case .failed(let error):
            throw error
        case .granted(let grant):
            refresher.apply(grant, to: &record)
            let info = try storeSession(key, record, label: "\(key.service) session (\(key.account))")
            logger.info("signed in with a device code: session for \(key)")
            return ResultBody(item: ItemBody(info, secret: nil))
        }
    }

    /// Signs in (or up) with the request's provider; a nil record means "no session yet"
    /// (Supabase sign-up with email confirmation on), with `message` saying what to do.
    private func signIn(with request: SignInRequest, signingUp: Bool) throws -> (ItemKey, SessionRecord?, String?) {
        let password = request.password
        switch request.provider {
        case .supabase(let settings):
            let supabase = try supabaseAuth(settings)
            let email = request.user
            let key = try ItemKey(service: request.service ?? hostName(supabase.projectURL), account: request.account ?? email)
            var record = SessionRecord.beforeSignIn(provider: "supabase", tokenEndpoint: supabase.tokenEndpoint)
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
            refresher.apply(grant, to: &record)
            return (key, record, nil)
        case .firebase(let settings):
            let firebase = try firebaseAuth(settings)
            let email = request.user
            guard let service = request.service, !service.isEmpty else { throw VaultError.invalidInput("missing field 'service'") }
            let key = try ItemKey(service: service, account: request.account ?? email)
            var record = SessionRecord.beforeSignIn(provider: "firebase", tokenEndpoint: firebase.tokenEndpoint)
            record.apiKey = firebase.apiKey
            record.projectURL = firebase.emulatorBase
            record.email = email
            let outcome = signingUp ? firebase.signUp(email: email, password: password) : firebase.signIn(email: email, password: password)
            guard case .granted(let grant) = outcome else { throw providerError(outcome, doing: signingUp ? "sign up" : "sign in") }
            refresher.apply(grant, to: &record)
            return (key, record, nil)
        case .oauth2(let settings):
            guard !signingUp else { throw VaultError.invalidInput("OAuth 2.0 has no standard sign-up; sign up with the provider, then 'vaultctl login oauth2'") }
            let username = request.user
            guard let service = request.service, !service.isEmpty else { throw VaultError.invalidInput("missing field 'service'") }
            let key = try ItemKey(service: service, account: request.account ?? username)
            let template = SessionRecord.beforeSignIn(oauth2: settings)
            try template.validate()
            var record = try refresher.signIn(template: template, username: username, password: password)
            record.userID = record.userID ?? username
            return (key, record, nil)
        }
    }

    /// Revokes the session on the server where the provider supports it. A server that cannot
    /// be reached is an error and the local session is kept, so signing out can be retried.
    private func revokeOnServer(_ record: SessionRecord) throws {
        switch record.provider {
        case "supabase":
            guard let projectURL = record.projectURL, let apiKey = record.apiKey else { return }
            let supabase = SupabaseAuth(http: refresher.client.http, projectURL: projectURL, apiKey: apiKey)
            if let failure = supabase.logout(accessToken: record.accessToken) {
                // An expired or unknown session is signed out already.
                if case .rejected = failure { return }
                throw providerError(failure, doing: "sign out")
            }
        default:
            guard let endpoint = record.revocationEndpoint, let refreshToken = record.refreshToken else { return }
            if let problem = refresher.client.revoke(endpoint: endpoint, token: refreshToken, clientID: record.clientID, clientSecret: record.clientSecret) {
                throw VaultError.unavailable("could not revoke the session on the server (\(problem)); it is kept: try again, or 'vaultctl delete' it to forget it here only")
            }
        }
    }

    private func firebaseAuth(_ settings: FirebaseSettings) throws -> FirebaseAuth {
        if let base = settings.emulatorURL {
            try SessionRecord.checkEndpoint(base, name: "url")
        }
        return FirebaseAuth(http: refresher.client.http, apiKey: settings.apiKey, emulatorBase: settings.emulatorURL)
    }

    private func supabaseAuth(_ settings: SupabaseSettings) throws -> SupabaseAuth {
        try SessionRecord.checkEndpoint(settings.projectURL, name: "url")
        return SupabaseAuth(http: refresher.client.http, projectURL: settings.projectURL, apiKey: settings.apiKey)
    }

    private func storeSession(_ key: ItemKey, _ record: SessionRecord, label: String?) throws -> ItemInfo {
        try store.perform { try $0.set(key, secret: record.encoded(), changes: ItemChanges(label: label, kind: .session)) }
    }

    private func providerError(_ outcome: TokenOutcome, doing action: String) -> VaultError {
        switch outcome {
        case .rejected(_, let message): .permissionDenied("could not \(action): \(message)")
        case .temporary(let message), .malformed(let message): .unavailable("could not \(action): \(message)")
        case .granted: .internal("unexpected success")
        }
    }

    private func hostName(_ url: String) -> String {
        let afterScheme = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first
        return afterScheme.map(String.init) ?? url
    }

    /// Background refresh (`--refresh-ahead`): every session whose token expires within `ahead`
    /// seconds is refreshed now, through the same single-flight path as `token`.
    func refreshSessions(expiringWithin ahead: Double) {
        guard let sessions = try? store.perform({ try $0.list(service: nil) }) else { return }
        for info in sessions where info.kind == .session {
            do {
                _ = try refresher.token(for: info.key, minTTL: ahead)
            } catch {
                logger.debug("background refresh of \(info.key) failed: \(error)")
            }
        }
    }

    /// An item's metadata, with a session's non-secret details for sessions.
    func describe(_ info: ItemInfo) -> ItemBody {
        var body = ItemBody(info, secret: nil)
        if info.kind == .session, let record = try? refresher.load(info.key) {
            body.session = SessionBody(
                provider: record.provider, user: record.email ?? record.userID,
                expiresAt: record.expiresAt.map { Timestamp.rfc3339(milliseconds: Int64($0 * 1000)) }, needsSignIn: record.needsSignIn)
        }
        return body
    }

    /// The session named by service and account; with no account, the service's only session.
    func sessionKey(service serviceName: String, account: String?) throws -> ItemKey {
        if let account { return try ItemKey(service: serviceName, account: account) }
        try ItemKey.validate(serviceName, field: "service")
        let sessions = try store.perform { try $0.list(service: serviceName) }.filter { $0.kind == .session }
        guard let only = sessions.first else { throw VaultError.notFound(try ItemKey(service: serviceName, account: "(any session)")) }
        guard sessions.count == 1 else {
            throw VaultError.invalidInput("\(serviceName) has \(sessions.count) sessions (\(sessions.map(\.key.account).joined(separator: ", "))); name the account")
        }
        return only.key
    }
}
