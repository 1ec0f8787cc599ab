import VaultCore

/// Chooses the store: the Secret Service when asked for, or when `auto` finds a session bus whose
/// Secret Service answers and has a default collection; the encrypted file store otherwise.
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
    }

    public static func preference(_ text: String?) throws -> Preference {
        guard let text, !text.isEmpty else { return .auto }
        guard let preference = Preference(rawValue: text) else {
            throw VaultError.invalidInput("unknown backend '\(text)'; use auto, secret-service or file")
        }
        return preference
    }

    public static func select(
        _ preference: Preference, environment: [String: String], secretServiceTimeout: Double,
        fileStore: () -> EncryptedFileStore
    ) -> Selection {
        switch preference {
        case .file:
            return Selection(store: fileStore(), reason: "the file store was chosen (VAULT_BACKEND or --backend is 'file')")
        case .secretService:
            return Selection(store: SecretServiceStore(timeout: secretServiceTimeout), reason: "the Secret Service was chosen (VAULT_BACKEND or --backend is 'secret-service')")
        case .auto:
            if let missing = missingBus(environment) {
                return Selection(store: fileStore(), reason: "auto: \(missing), so the encrypted file store is used")
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
