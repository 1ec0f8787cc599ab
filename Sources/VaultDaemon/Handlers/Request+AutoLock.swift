import VaultProtocol

extension Request {
    /// Whether this request touches items and so postpones auto-lock (`--lock-after`). Asking how
    /// vaultd is (`status`, `doctor`), locking, and sign-in steps that only talk to a provider do
    /// not; neither does anything vaultd does by itself, such as background refresh.
    var postponesAutoLock: Bool {
        switch self {
        case .status, .doctor, .lock, .resetPassword, .deviceStart: false
        case .get, .add, .set, .delete, .list, .unlock, .changePassphrase, .migrate, .token, .login, .signup, .logout,
             .importSession, .devicePoll, .foreignList, .foreignGet, .foreignSet, .foreignDelete, .allow, .disallow, .rules: true
        case .audit, .approveNext, .approveAnswer: false
        }
    }

    /// Whether a `locked` answer to it should say why the store is locked (and retry a fixed
    /// passphrase source): requests for items, not the ones that unlock or move the store.
    var touchesItems: Bool {
        switch self {
        case .get, .add, .set, .delete, .list, .token, .login, .signup, .logout, .importSession, .devicePoll,
             .foreignList, .foreignGet, .foreignSet, .foreignDelete, .allow, .disallow, .rules, .audit, .approveAnswer: true
        case .approveNext, .status, .doctor, .lock, .unlock, .changePassphrase, .migrate, .resetPassword, .deviceStart: false
        }
    }
}
