import VaultCore
import VaultCrypto
import VaultSystem

/// The sessions (org.freedesktop.Secret.Session at /org/freedesktop/secrets/session/…): opened
/// by OpenSession for one bus connection, which alone may use or close its own; the others'
/// are indistinguishable from none. Secrets cross the bus only inside a session
/// (`SecretServiceSession`: plain, or DH-agreed AES-CBC).
final class SessionObject: BusObject {
    enum Method: String, CaseIterable {
        case close = "Close"
    }

    static let interface = "org.freedesktop.Secret.Session"
    /// Sessions one bus connection may hold, and all of them together.
    static let perCaller = 64
    static let maxSessions = 4096

    private let sessions = AdaptiveLock([String: SecretServiceSession]())
    private let callers: CallerRegistry
    private let newPath: @Sendable (String) -> String
    private let keys = SessionKeyReserve()

    init(callers: CallerRegistry, newPath: @escaping @Sendable (String) -> String) {
        self.callers = callers
        self.newPath = newPath
    }

    func call(_ method: Method, _ request: BusRequest) throws -> BusReply {
        switch method {
        case .close:
            _ = try session(request.path, of: request.sender)
            sessions.withLock { _ = $0.removeValue(forKey: request.path) }
            return BusReply()
        }
    }

    /// OpenSession for `owner`: `algorithm` with the client's `input`; the output and the path.
    func open(algorithm: String, input: BusVariant?, owner: String) throws(BusError) -> BusValue {
        let key: SecretBytes?
        let output: BusValue
        switch algorithm {
        case SecretServiceSession.plain:
            guard input?.string != nil else { throw BusError.invalidArgs("the plain algorithm's input is a string (empty)") }
            (key, output) = (nil, .string(""))
        case SecretServiceSession.dh:
            guard let input else { throw BusError.invalidArgs("\(SecretServiceSession.dh) takes the client's public key as bytes (ay)") }
            // A 1024-bit group's key is 128 bytes; anything much longer is refused uncopied.
            let peer = try input.secretBytes(atMost: 256, "the DH public key")
            do {
                let ours = try keys.next()
                (key, output) = (try SecretServiceKeyExchange.agree(peer: peer.unprotectedBytes, with: ours), .bytes(SecretBytes(ours.publicKey)))
            } catch {
                throw BusError.invalidArgs("the DH public key is unusable: \(error)")
            }
        default:
            throw BusError.notSupported("vaultd offers the algorithms \(SecretServiceSession.plain) and \(SecretServiceSession.dh), not '\(String(algorithm.prefix(64)).replacingControlCharacters())'")
        }
        let path = newPath(SecretServicePath.sessionPrefix)
        let opened = sessions.withLock { sessions -> Bool in
            guard sessions.count < Self.maxSessions, sessions.values.count(where: { $0.owner == owner }) < Self.perCaller else { return false }
            sessions[path] = SecretServiceSession(path: path, owner: owner, key: key)
            return true
        }
        guard opened else { throw BusError.limitsExceeded("too many open sessions (at most \(Self.perCaller) per connection): close some") }
        // Added, then the caller asked for: one that left the bus meanwhile has its sessions
        // dropped by `dropAll`, or is seen here.
        guard callers.isOnBus(owner) else {
            sessions.withLock { _ = $0.removeValue(forKey: path) }
            throw BusError.failed("the caller left the bus")
        }
        return .tuple([.variant(output), .objectPath(path)])
    }

    /// The session at `path` if `sender` opened it.
    func session(_ path: String, of sender: String) throws(BusError) -> SecretServiceSession {
        guard let session = sessions.withLock({ $0[path] }), session.owner == sender else {
            throw BusError.noSession("that session is not open on this connection: call OpenSession first")
        }
        return session
    }

    /// The secret and its content type in a Secret struct `(oayays)` that `caller` sent through
    /// its own session.
    func secret(in secret: BusVariant, from caller: String) throws -> (SecretBytes, String) {
        let session = try session(secret.child(0)?.string ?? "", of: caller)
        guard let parametersValue = secret.child(1), let valueValue = secret.child(2), let contentType = secret.child(3)?.string else {
            throw BusError.invalidArgs("a secret is (oayays)")
        }
        // Sizes before copies: parameters are an IV at most, the value the largest secret
        // padded to a whole AES block.
        let parameters = try parametersValue.secretBytes(atMost: 64, "the secret's parameters")
        let value = try valueValue.secretBytes(atMost: ItemLimits.maxSecretBytes + AESCBC.blockSize, "the secret")
        if let problem = ItemAttributes.problem(withContentType: contentType) { throw BusError.invalidArgs(problem) }
        let plaintext = try session.decode(parameters: parameters, value: value)
        guard plaintext.count <= ItemLimits.maxSecretBytes else {
            throw BusError.invalidArgs("the secret is \(plaintext.count) bytes; the limit is \(ItemLimits.maxSecretBytes)")
        }
        return (plaintext, contentType)
    }

    /// `owner` left the bus: its sessions close.
    func dropAll(of owner: String) {
        sessions.withLock { $0 = $0.filter { $0.value.owner != owner } }
    }

    var count: Int { sessions.withLock { $0.count } }
}
