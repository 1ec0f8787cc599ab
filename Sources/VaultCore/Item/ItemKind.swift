/// What an item's secret is. Stored in the file and on the wire by its raw value.
public enum ItemKind: String, Sendable, CaseIterable, Codable {
    /// An opaque secret: a password, an API key, any bytes.
    case secret
    /// A sign-in session (access token, refresh token, provider settings) kept fresh by vaultd.
    case session
    /// AWS credentials for `credential_process`: a JSON object with AccessKeyId, SecretAccessKey
    /// and optionally SessionToken and Expiration, checked by `vaultctl aws set`.
    case aws
    /// vault's own records, never shown by list or given by get: the access rules and the audit
    /// log's key, under the reserved service `ItemKey.reservedService` (docs/protocol.md).
    case access
}
