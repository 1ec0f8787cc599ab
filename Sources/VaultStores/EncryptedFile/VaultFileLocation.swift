import VaultCore

/// Where the vault file lives: `VAULT_FILE`, else `$XDG_DATA_HOME/vault/vault.db`,
/// else `~/.local/share/vault/vault.db`.
public enum VaultFileLocation {
    public static func path(environment: [String: String]) throws -> String {
        if let file = environment["VAULT_FILE"], !file.isEmpty {
            guard file.hasPrefix("/") else {
                throw VaultError.invalidInput("VAULT_FILE must be an absolute path, got '\(file)'")
            }
            return file
        }
        return try dataDirectory(environment: environment) + "/vault.db"
    }

    /// vault's data directory: `$XDG_DATA_HOME/vault`, else `~/.local/share/vault`.
    public static func dataDirectory(environment: [String: String]) throws -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/vault"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw VaultError.unavailable("cannot place the vault file: set HOME, XDG_DATA_HOME or VAULT_FILE")
        }
        return home + "/.local/share/vault"
    }
}
