#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto

/// Who may approve: a connection that proved the approval secret (`ApprovalSecret`), and how
/// that secret is set.
extension AccessControl {
    /// A wrong approval secret costs its sender this long before the answer (besides scrypt's own
    /// cost), so guessing it through vaultd is slow; every wrong guess is in the audit log.
    static let wrongSecretDelay: UInt32 = 1_000_000

    /// Makes the connection `approver` of `caller` an approver when `secret` is the approval
    /// secret. `notFound` when none was set yet (`vaultctl approve` then offers to set it).
    func registerApprover(_ approver: ObjectIdentifier, secret: SecretBytes, caller: CallerIdentity, hungUp: @escaping @Sendable () -> Bool) throws {
        guard let stored = try store.read({ try ApprovalSecret.load(from: $0) }) else {
            throw VaultError.notFound(.approvalSecret)
        }
        guard try stored.matches(secret) else {
            usleep(Self.wrongSecretDelay)
            record(op: "approve_next", item: nil, result: VaultErrorCode.denied.rawValue, caller: caller, grant: "wrong approval secret")
            throw VaultError.denied("that is not the approval secret: this connection is not an approver")
        }
        broker.register(approver, pid: caller.pid, hungUp: hungUp)
        record(op: "approve_next", item: nil, result: "ok", caller: caller, grant: "approver registered")
    }

    /// Sets the approval secret to `new`. Changing it needs `proof`: the current approval secret,
    /// or the vault's passphrase on a store that has one; setting the first one needs that
    /// passphrase there (anyone who knows it owns the vault anyway), and nothing on a store
    /// without one (the Secret Service, whose items any program of the user reads over D-Bus).
    func setApprovalSecret(_ new: SecretBytes, proof: SecretBytes?, parameters: Scrypt.Parameters, caller: CallerIdentity) throws {
        let (stored, protected) = try store.read { active in (try ApprovalSecret.load(from: active), active as? any PassphraseProtected) }
        var proven = stored == nil && protected == nil
        if !proven, let proof {
            proven = try stored?.matches(proof) == true
            if !proven, let protected { proven = try protected.verifyPassphrase(proof) }
        }
        guard proven else {
            let what = stored == nil ? "the vault's passphrase" : protected == nil ? "the current approval secret" : "the current approval secret or the vault's passphrase"
            if proof == nil { throw VaultError.passphraseUnavailable("setting the approval secret needs \(what)") }
            usleep(Self.wrongSecretDelay)
            record(op: "set_approval_secret", item: nil, result: VaultErrorCode.denied.rawValue, caller: caller)
            throw VaultError.denied("that is not \(what): the approval secret was not changed")
        }
        let made = try ApprovalSecret.make(new, parameters: parameters)
        try store.perform { try made.save(to: $0) }
        record(op: "set_approval_secret", item: nil, result: "ok", caller: caller)
    }
}
