import VaultCore

/// What a `SecretReference` named, as `VaultConnection.resolve` found it.
public struct ResolvedReference: Sendable {
    public let reference: SecretReference
    /// The item's secret, the field it selects, or the session's access token (or its field).
    public let value: SecretBytes
    /// For a sign-in session: its names, to ask again for a fresher token (`--on-refresh`).
    public let session: ItemKey?
    /// For a sign-in session: the token the value came from.
    public let token: AccessToken?

    public init(reference: SecretReference, value: SecretBytes, session: ItemKey?, token: AccessToken?) {
        self.reference = reference
        self.value = value
        self.session = session
        self.token = token
    }
}
