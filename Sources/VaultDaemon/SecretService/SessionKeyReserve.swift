import Dispatch
import VaultCrypto
import VaultSystem

/// One Diffie-Hellman key pair made ahead for the next DH OpenSession, so that a client waits
/// for one exponentiation (the shared secret), not two: `next` hands out the pair made ahead
/// (or makes one there and then, when none is ready) and starts making the one after on a
/// utility queue. Each pair serves one session only; its secret is cleared when released.
final class SessionKeyReserve: Sendable {
    private let ready = AdaptiveLock<SecretServiceKeyPair?>(nil)
    private let making = DispatchQueue(label: "vaultd.session-keys", qos: .utility)

    func next() throws -> SecretServiceKeyPair {
        let made = ready.withLock { ready -> SecretServiceKeyPair? in
            defer { ready = nil }
            return ready
        }
        making.async { [ready] in
            guard ready.withLock({ $0 == nil }), let pair = try? SecretServiceKeyPair() else { return }
            ready.withLock { ready in
                if ready == nil { ready = pair }
            }
        }
        return try made ?? SecretServiceKeyPair()
    }
}
