import VaultClient
import VaultCore

/// The one place the credential helpers find, read, write and delete their items in vault, all
/// through `VaultConnection` (so with its server checks and autostart). Reading the items other
/// helpers left in the Secret Service (git-credential-libsecret's `org.git.Password`,
/// docker-credential-secretservice's `io.docker.Credentials`) would be added here, in `accounts`
/// and `secret`, once the Secret Service store can search foreign schemas.
struct CredentialItems {
    let vault: VaultConnection

    /// The accounts of the plain secrets kept under `service`, sorted.
    func accounts(service: String) throws(VaultClientError) -> [String] {
        try vault.list(service: service).filter { $0.kind == .secret }.map(\.account)
    }

    /// The accounts and services of every plain secret whose service starts with `prefix`.
    func items(servicePrefix prefix: String) throws(VaultClientError) -> [ItemMetadata] {
        try vault.list().filter { $0.kind == .secret && $0.service.hasPrefix(prefix) }
    }

    /// The secret of one item, nil when there is none.
    func secret(service: String, account: String) throws(VaultClientError) -> SecretBytes? {
        do throws(VaultClientError) {
            let item = try vault.get(service: service, account: account)
            return item.metadata.kind == .secret ? item.secret : nil
        } catch {
            if error.code == .notFound { return nil }
            throw error
        }
    }

    func write(service: String, account: String, secret: SecretBytes, label: String) throws(VaultClientError) {
        try vault.set(service: service, account: account, secret: secret, label: label)
    }

    /// Deletes one item; one already gone is not an error.
    func delete(service: String, account: String) throws(VaultClientError) {
        do throws(VaultClientError) {
            try vault.delete(service: service, account: account)
        } catch {
            if error.code != .notFound { throw error }
        }
    }
}
