import VaultCore
import VaultProtocol
import VaultStores
import VaultTokens

/// Sign-in sessions: token, login, signup, reset_password, logout, import_session, device_start,
/// device_poll.
extension RequestDispatcher {
    func token(_ request: TokenRequest, _ asking: ItemRequest) throws -> ResultBody {
        let key = try sessionKey(service: request.service, account: request.account)
        let token = try items.guardedRead(key, op: .token, by: asking) { try refresher.token(for: key, minTTL: request.minTTL) }
        return ResultBody(token: TokenBody(
            accessToken: token.accessToken, tokenType: token.tokenType,
            expiresAt: token.expiresAt.flatMap(Timestamp.rfc3339(checkedSeconds:)), account: key.account))
    }

    func signIn(_ request: SignInRequest, signingUp: Bool) throws -> ResultBody {
        let result = try sessions.signIn(
            request.provider, user: request.user, password: request.password, service: request.service, account: request.account,
            signingUp: signingUp)
        guard let info = result.info else { return ResultBody(message: result.message) }
        logger.info(signingUp ? "signed up: a session was stored" : "signed in: a session was stored", naming: result.key.description)
        return ResultBody(item: ItemBody(info, secret: nil), message: result.message)
    }

    func resetPassword(_ request: ResetPasswordRequest) throws -> ResultBody {
        try sessions.resetPassword(request.provider, email: request.email)
        return ResultBody(message: "if \(request.email) has an account, a password reset email is on its way")
    }

    func logout(_ name: SessionName) throws -> ResultBody {
        let key = try sessionKey(service: name.service, account: name.account)
        if name.local == true {
            let info = try store.read { try $0.list(service: key.service) }.first { $0.key == key }
            guard let info else { throw VaultError.notFound(key) }
            guard info.kind == .session else { throw VaultError.invalidInput("\(key) is a plain secret, not a sign-in session; use 'vaultctl delete'") }
            try sessions.forget(key)
            logger.info("forgot a session here only (logout --local)", naming: key.description)
            return ResultBody(message: "forgot the session for \(key.service) (\(key.account)) here only; the provider was not asked to end it")
        }
        switch try sessions.logout(key) {
        case .endedOnServer:
            logger.info("signed out: a session ended on the server and removed", naming: key.description)
            return ResultBody(message: "signed out of \(key.service) (\(key.account))")
        case .nothingToEnd:
            logger.info("signed out: a session removed (nothing to end on the server)", naming: key.description)
            return ResultBody(message: "signed out of \(key.service) (\(key.account)): removed here; the provider has no sign-out to ask for")
        }
    }

    func importSession(_ request: SessionImport) throws -> ResultBody {
        let key = try ItemKey(service: request.service, account: request.account)
        let info = try sessions.importSession(
            key, json: request.session.unprotectedBytes, defaults: request.defaults, now: SessionClock.now())
        logger.info("imported a session", naming: key.description)
        return ResultBody(item: ItemBody(info, secret: nil))
    }

    func deviceStart(_ request: DeviceStartRequest) throws -> ResultBody {
        let codes = try sessions.startDeviceSignIn(
            endpoint: request.deviceEndpoint, clientID: request.clientID, clientSecret: request.clientSecret, scope: request.scope)
        return ResultBody(device: DeviceBody(
            deviceCode: codes.deviceCode, userCode: codes.userCode, verificationURI: codes.verificationURI,
            verificationURIComplete: codes.verificationURIComplete, expiresIn: codes.expiresIn, interval: codes.interval))
    }

    func devicePoll(_ request: DevicePollRequest) throws -> ResultBody {
        let key = try ItemKey(service: request.service, account: request.account ?? "default")
        switch try sessions.pollDeviceSignIn(key, client: request.client, deviceCode: request.deviceCode) {
        case .pending:
            return ResultBody(device: DeviceBody(state: "pending"))
        case .slowDown:
            return ResultBody(device: DeviceBody(state: "slow_down"))
        case .signedIn(let info):
            logger.info("signed in with a device code: a session was stored", naming: key.description)
            return ResultBody(item: ItemBody(info, secret: nil))
        }
    }

    /// Background refresh (`--refresh-ahead`): every session whose token expires within `ahead`
    /// seconds is refreshed now, through the same single-flight path as `token`.
    func refreshSessions(expiringWithin ahead: Double) {
        guard let sessions = try? store.read({ try $0.list(service: nil) }) else { return }
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
        if let details = sessions.describe(info) {
            body.session = SessionBody(
                provider: details.provider.rawValue, user: details.user,
                expiresAt: details.expiresAt.flatMap(Timestamp.rfc3339(checkedSeconds:)), needsSignIn: details.needsSignIn)
        }
        return body
    }

    /// The session named by service and account; with no account, the service's only session.
    func sessionKey(service serviceName: String, account: String?) throws -> ItemKey {
        if let account { return try ItemKey(service: serviceName, account: account) }
        try ItemKey.validate(serviceName, field: "service")
        let sessions = try store.read { try $0.list(service: serviceName) }.filter { $0.kind == .session }
        guard let only = sessions.first else { throw VaultError.notFound(try ItemKey(service: serviceName, account: "(any session)")) }
        guard sessions.count == 1 else {
            throw VaultError.invalidInput("\(serviceName) has \(sessions.count) sessions (\(sessions.map(\.key.account).joined(separator: ", "))); name the account")
        }
        return only.key
    }
}
