import VaultCore
import VaultSystem

/// Chooses the store: the Secret Service when asked for, or when `auto` finds a session bus whose
/// Secret Service answers and has a default collection; the encrypted file store otherwise.
/// `auto` never hides a vault file that holds items: when one does (or one exists whose header
/// cannot be read), the file store is chosen even if a Secret Service answers.
/// Never plaintext, never silently: the reason is returned for logs and `status`.
public enum StoreSelector {
    public enum Preference: String, Sendable, CaseIterable {
        case auto
        case secretService = "secret-service"
        case file
    }

    public struct Selection {
        public let store: any VaultStore
        public let reason: String

        public init(store: any VaultStore, reason: String) {
            self.store = store
            self.reason = reason
        }
    }

    public static func preference(_ text: String?) throws -> Preference {
        guard let text, !text.isEmpty else { return .auto }
        guard let preference = Preference(rawValue: text) else {
            throw VaultError.invalidInput("unknown backend '\(text)'; use auto, secret-service or file")
        }
        return preference
    }

    /// `origin` says where the preference came from, for the reason: "VAULT_BACKEND",
    /// "--backend", "backend in ~/.config/vault/config".
    public static func select(
        _ preference: Preference, origin: String = "VAULT_BACKEND or --backend", environment: [String: String], secretServiceTimeout: Double,
        fileStore: () -> EncryptedFileStore
    ) -> Selection {
        switch preference {
        case .file:
            return Selection(store: fileStore(), reason: "the file store was chosen (\(origin) is 'file')")
        case .secretService:
            return Selection(store: SecretServiceStore(timeout: secretServiceTimeout), reason: "the Secret Service was chosen (\(origin) is 'secret-service')")
        case .auto:
            let file = fileStore()
            switch file.headerItemCount {
            case .some(let count) where count > 0:
                return Selection(store: file, reason: "auto: the vault file \(file.path) holds \(count) item(s), so the file store is used even if a Secret Service answers (auto never hides a vault that holds items; 'vaultctl migrate --to secret-service' moves them)")
            case .some(let count) where count < 0:
                return Selection(store: file, reason: "auto: a vault file exists at \(file.path) (its header cannot be read), so the file store is used, to show what is wrong with it")
            default:
                break
            }
            if let missing = missingBus(environment) {
                return Selection(store: file, reason: "auto: \(missing), so the encrypted file store is used")
            }
            let secretService = SecretServiceStore(timeout: min(secretServiceTimeout, 3))
            do {
                try secretService.probe()
                return Selection(store: SecretServiceStore(timeout: secretServiceTimeout),
                                 reason: "auto: the Secret Service answered on the session bus and has a default collection")
            } catch {
                return Selection(store: fileStore(), reason: "auto: the session bus has no usable Secret Service (\(error)), so the encrypted file store is used")
            }
        }
    }

    /// Why there is no session bus to try, or nil when there may be one.
    public static func missingBus(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return nil }
        if let runtime = environment["XDG_RUNTIME_DIR"], (try? FileStatus.of(runtime + "/bus"))??.isSocket == true { return nil }
        return "there is no session bus (DBUS_SESSION_BUS_ADDRESS is unset and there is no $XDG_RUNTIME_DIR/bus)"
    }
}
