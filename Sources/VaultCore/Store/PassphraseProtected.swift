/// A store whose key vault derives from a passphrase of its own (the encrypted file store), as
/// opposed to one the desktop unlocks (the Secret Service). The daemon asks for this capability
/// instead of downcasting to a concrete store.
public protocol PassphraseProtected: VaultStore {
    /// False until the first unlock creates the store's data.
    var exists: Bool { get }
    /// Changes the passphrase; `current` must be right. `rekey`: a new data key and every item
    /// re-encrypted under it (what protects items written later from a leaked old passphrase);
    /// otherwise the data key is only re-wrapped under `new`.
    func changePassphrase(current: SecretBytes, new: SecretBytes, rekey: Bool) throws
    /// Whether `passphrase` opens the store's data as it is on disk now (false, not an error, when
    /// it does not); changes nothing, locked or not.
    func verifyPassphrase(_ passphrase: SecretBytes) throws -> Bool
}
