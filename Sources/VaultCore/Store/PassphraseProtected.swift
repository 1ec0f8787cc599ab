/// A store whose key vault derives from a passphrase of its own (the encrypted file store), as
/// opposed to one the desktop unlocks (the Secret Service). The daemon asks for this capability
/// instead of downcasting to a concrete store.
public protocol PassphraseProtected: VaultStore {
    /// False until the first unlock creates the store's data.
    var exists: Bool { get }
    /// Re-wraps the data key under `new`; `current` must be right. Items are not re-encrypted.
    func changePassphrase(current: SecretBytes, new: SecretBytes) throws
}
