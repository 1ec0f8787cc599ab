import VaultCore
internal import VaultProtocol

/// Every operation vaultd answers, with the client's own models. Each throws `VaultClientError`.
extension VaultConnection {
    // MARK: Items

    public func get(service: String, account: String) throws(VaultClientError) -> VaultItem {
        let item = try answer(perform(.get(ItemName(service: service, account: account))).item)
        // Read from the response line straight into SecretBytes (MessageCodec.decode).
        guard let secret = item.secret else {
            throw .malformedAnswer("the item has no readable secret")
        }
        return VaultItem(metadata: try ItemMetadata(wire: item), secret: secret)
    }

    /// Adds an item; fails with `.duplicate` when it exists.
    @discardableResult
    public func add(service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil, kind: ItemKind? = nil) throws(VaultClientError) -> ItemMetadata {
        try ItemMetadata(wire: answer(perform(.add(ItemWrite(service: service, account: account, secret: secret, label: label, comment: comment, kind: kind?.rawValue))).item))
    }

    /// Inserts or replaces an item; `label` and `comment` left nil keep their current values.
    @discardableResult
    public func set(service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil, kind: ItemKind? = nil) throws(VaultClientError) -> ItemMetadata {
        try ItemMetadata(wire: answer(perform(.set(ItemWrite(service: service, account: account, secret: secret, label: label, comment: comment, kind: kind?.rawValue))).item))
    }

    public func delete(service: String, account: String) throws(VaultClientError) {
        _ = try perform(.delete(ItemName(service: service, account: account)))
    }

    /// Metadata of every item (of one service when given), sorted; never secrets.
    public func list(service: String? = nil) throws(VaultClientError) -> [ItemMetadata] {
        try listing(service: service).items
    }

    /// The items and, so that nothing is invisible, the store's items no key can address: every
    /// page, followed to the last (a vaultd from before pages answers everything in one).
    public func listing(service: String? = nil) throws(VaultClientError) -> ItemListing {
        var listing = ItemListing(items: [], unaddressable: [])
        var after: String?
        repeat {
            let result = try perform(.list(ListRequest(service: service, after: after, limit: ListRequest.defaultLimit)))
            for item in result.items ?? [] { listing.items.append(try ItemMetadata(wire: item)) }
            for item in result.unaddressable ?? [] { listing.unaddressable.append(try UnaddressableItem(wire: item)) }
            guard result.next == nil || (result.next != after && !(result.items ?? []).isEmpty) else {
                throw VaultClientError.malformedAnswer("a page of list that does not advance")
            }
            after = result.next
        } while after != nil
        return listing
    }

    // MARK: The vault

    public func status() throws(VaultClientError) -> VaultStatus {
        try VaultStatus(wire: answer(perform(.status).status))
    }

    public func lock() throws(VaultClientError) {
        _ = try perform(.lock)
    }

    /// Unlocks the store; the file store needs `passphrase` (and creates the vault on first use).
    public func unlock(passphrase: SecretBytes?) throws(VaultClientError) {
        _ = try perform(.unlock(UnlockRequest(passphrase: passphrase)))
    }

    /// Changes the file store's passphrase. `rekey` (the default): a new data key, every item
    /// re-encrypted; false: the data key only re-wrapped (an old copy of the file opens with the
    /// old passphrase and decrypts what is written later).
    public func changePassphrase(current: SecretBytes, new: SecretBytes, rekey: Bool = true) throws(VaultClientError) {
        _ = try perform(.changePassphrase(PassphraseChange(current: current, new: new, rekey: rekey)))
    }

    /// Moves every item to `destination`. Fails with `.passphraseRequired` (or
    /// `.newPassphraseRequired`) when the file store needs a passphrase vaultd has no source for.
    public func migrate(to destination: StoreKind, passphrase: SecretBytes? = nil) throws(VaultClientError) -> MigrationReport {
        try MigrationReport(wire: answer(perform(.migrate(MigrateRequest(destination: destination, passphrase: passphrase))).migration))
    }

    public func doctor() throws(VaultClientError) -> DoctorReport {
        try DoctorReport(wire: answer(perform(.doctor).doctor))
    }

    // MARK: Sign-in sessions

    /// A valid access token of the session `service` (and `account`, when the service has
    /// several), refreshed by vaultd first when it expires within `minTTL` seconds. Fails with
    /// `.signInRequired` when the user must sign in again.
    public func token(service: String, account: String? = nil, minTTL: Double = 60) throws(VaultClientError) -> AccessToken {
        try AccessToken(wire: answer(perform(.token(TokenRequest(service: service, account: account, minTTL: minTTL))).token))
    }

    /// Signs in with a provider and keeps the session (service and account default per provider).
    public func signIn(_ provider: ProviderSettings, user: String, password: SecretBytes, service: String? = nil, account: String? = nil) throws(VaultClientError) -> SignInResult {
        try signInResult(perform(.login(SignInRequest(provider: provider, user: user, password: password, service: service, account: account))))
    }

    /// Signs up; with Supabase's email confirmation on, no session is stored yet (see `message`).
    public func signUp(_ provider: ProviderSettings, user: String, password: SecretBytes, service: String? = nil, account: String? = nil) throws(VaultClientError) -> SignInResult {
        try signInResult(perform(.signup(SignInRequest(provider: provider, user: user, password: password, service: service, account: account))))
    }

    /// Asks the provider to send a password reset email; returns what to tell the user.
    public func resetPassword(_ provider: ProviderSettings, email: String) throws(VaultClientError) -> String {
        try answer(perform(.resetPassword(ResetPasswordRequest(provider: provider, email: email))).message)
    }

    /// Revokes the session on the server, then forgets it here; returns what to tell the user.
    public func logout(service: String, account: String? = nil) throws(VaultClientError) -> String {
        try answer(perform(.logout(SessionName(service: service, account: account))).message)
    }

    /// Adopts a session obtained elsewhere: `json` is a stored session or an OAuth 2.0 token
    /// response; `defaults` fill in what it lacks.
    @discardableResult
    public func importSession(service: String, account: String, json: SecretBytes, defaults: SessionDefaults = SessionDefaults()) throws(VaultClientError) -> ItemMetadata {
        try ItemMetadata(wire: answer(perform(.importSession(SessionImport(service: service, account: account, session: json, defaults: defaults))).item))
    }

    /// Starts a device sign-in (RFC 8628): the codes to show.
    public func startDeviceSignIn(deviceEndpoint: String, clientID: String?, clientSecret: String?, scope: String?) throws(VaultClientError) -> DeviceCodes {
        let start = DeviceStartRequest(deviceEndpoint: deviceEndpoint, clientID: clientID, clientSecret: clientSecret, scope: scope)
        return try DeviceCodes(wire: answer(perform(.deviceStart(start)).device))
    }

    /// Asks once whether the device code was approved; once it is, the session is stored.
    public func pollDeviceSignIn(service: String, account: String?, client: OAuth2Settings, deviceCode: String) throws(VaultClientError) -> DevicePollResult {
        let result = try perform(.devicePoll(DevicePollRequest(service: service, account: account, client: client, deviceCode: deviceCode)))
        if let item = result.item { return .signedIn(try ItemMetadata(wire: item)) }
        switch result.device?.state {
        case "pending": return .pending
        case "slow_down": return .slowDown
        default: throw .malformedAnswer("a device poll answer with neither a state nor a session")
        }
    }

    private func signInResult(_ result: ResultBody) throws(VaultClientError) -> SignInResult {
        SignInResult(session: try result.item.map { (item) throws(VaultClientError) in try ItemMetadata(wire: item) }, message: result.message)
    }

    /// The part of a result an operation must carry.
    private func answer<T>(_ part: T?) throws(VaultClientError) -> T {
        guard let part else { throw .malformedAnswer("a required part of the answer is missing") }
        return part
    }
}
