/// Whether vaultd serves the Secret Service D-Bus API (`--secret-service-provider`,
/// `VAULT_SECRET_SERVICE_PROVIDER`): `auto` when there is a session bus, nobody else owns
/// `org.freedesktop.secrets` and vault uses its file store; `on` the same, but vaultd refuses to
/// start when it cannot; `off` never.
public enum SecretServiceProviderMode: String, Sendable, CaseIterable {
    case auto, on, off

    /// The mode `text` names; an error saying which exist otherwise.
    static func parse(_ text: String, origin: String) throws(DaemonConfiguration.Problem) -> SecretServiceProviderMode {
        guard let mode = SecretServiceProviderMode(rawValue: text) else {
            throw .usage("\(origin) is auto, on or off, not '\(String(text.prefix(64)).replacingControlCharacters())'")
        }
        return mode
    }
}
