import VaultCore
import VaultProtocol

/// lock, unlock, change_passphrase.
extension RequestDispatcher {
    func lock() throws -> ResultBody {
        try store.lock()
        store.setLockReason("locked by 'vaultctl lock': run 'vaultctl unlock'")
        logger.info("locked on request")
        return ResultBody(status: status())
    }

    func unlock(_ unlock: UnlockRequest) throws -> ResultBody {
        do {
            try store.perform { try $0.unlock(passphrase: unlock.passphrase) }
        } catch let error as VaultError {
            logger.warning("unlock failed: \(error)")
            throw error
        }
        store.setLockReason(nil)
        logger.info("unlocked")
        return ResultBody(status: status())
    }

    func changePassphrase(_ change: PassphraseChange) throws -> ResultBody {
        try store.perform { store in
            guard let protected = store as? any PassphraseProtected else {
                throw VaultError.invalidInput("the \(store.kind.rawValue) store has no passphrase of vault's to change")
            }
            try protected.changePassphrase(current: change.current, new: change.new, rekey: change.rekey)
        }
        logger.info(change.rekey ? "passphrase changed; the vault has a new key and every item was re-encrypted" : "passphrase changed (the data key was re-wrapped, not replaced)")
        return ResultBody()
    }
}
