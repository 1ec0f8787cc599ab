import VaultClient
import VaultCore

/// The one place the credential helpers find, read, write and delete their items in vault, all
/// through `VaultConnection` (so with its server checks and autostart): vault's own items, and
/// the items other helpers keep in the Secret Service (git-credential-libsecret's,
/// docker-credential-secretservice's; `ForeignSchema`), which vaultd finds by their attributes.
/// In vault's own store (kept there when vaultd serves the Secret Service) they are found and
/// deleted, never written: the helpers then keep their own items.
struct CredentialItems {
    let vault: VaultConnection

    /// The credential vaultd gives a helper's `get` for `lookup`, in one request.
    func resolve(_ lookup: CredentialLookup) throws(VaultClientError) -> ResolvedCredential {
        try vault.resolveCredential(lookup)
    }

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

    // MARK: Other helpers' items

    /// The matching items of `schema` (a nil value: the item has no such attribute), newest first.
    func foreignItems(_ schema: ForeignSchema, matching: [String: String?]) throws(VaultClientError) -> [ForeignItem] {
        try vault.foreignItems(schema, matching: matching)
    }

    /// The newest matching item of `schema` with its secret, nil when there is none.
    func foreignSecret(_ schema: ForeignSchema, matching: [String: String?]) throws(VaultClientError) -> (item: ForeignItem, secret: SecretBytes)? {
        try vault.foreignItem(schema, matching: matching)
    }

    /// Gives the item with exactly these attributes this secret, creating it when missing. False
    /// when the store does not write other helpers' items (vault's own stores): nothing was
    /// written.
    func writeForeign(_ schema: ForeignSchema, attributes: [String: String?], label: String, secret: SecretBytes) throws(VaultClientError) -> Bool {
        try !vault.setForeignItem(schema, attributes: attributes, label: label, secret: secret).isEmpty
    }

    /// Deletes the matching items of `schema`; answers those deleted.
    @discardableResult
    func deleteForeign(_ schema: ForeignSchema, matching: [String: String?]) throws(VaultClientError) -> [ForeignItem] {
        try vault.deleteForeignItems(schema, matching: matching)
    }
}
