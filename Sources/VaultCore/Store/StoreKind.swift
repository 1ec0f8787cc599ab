/// The backends vault keeps items in. The raw value is the name used by `VAULT_BACKEND`,
/// `--backend`, `migrate --to`, `status` and the wire protocol.
public enum StoreKind: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The AES-256-GCM encrypted file (`VAULT_FILE`).
    case file
    /// The desktop's Secret Service (GNOME Keyring, KeePassXC) through libsecret.
    case secretService = "secret-service"
    /// Process memory, for tests.
    case memory

    /// The kinds a user can choose or migrate to.
    public static let persistent: [StoreKind] = [.file, .secretService]

    /// The name, as `VAULT_BACKEND` takes it: interpolating a kind gives "secret-service".
    public var description: String { rawValue }

    /// For people: "Encrypted file store", "Secret Service".
    public var displayName: String {
        switch self {
        case .file: "Encrypted file store"
        case .secretService: "Secret Service"
        case .memory: "In-memory store"
        }
    }
}
