import VaultCore
import VaultCrypto
import VaultRemotes
import VaultSpaces

/// The engine credential handed to an admitted device once (response wrapping): the admitting
/// device asks its engine for a new token, answered only as a wrapping token, and seals that to
/// the new device (`SpaceHandover`); the new device opens it, checks what it wraps, unwraps it
/// and keeps the token as a remote of its own (`space-NAME`), which the space uses from then.
/// So the credential a machine joins with can be a narrow one (write its device entry, read its
/// keys), and the one it syncs with never crosses the network unwrapped nor sits on the engine
/// readable by anyone but the new device.
extension SpaceAgent {
    /// Seconds a handed-over wrapping token lives: the new device takes it at its next check.
    static let handoverTTL = 1_800

    /// Makes and seals a handover for `device` in `engine`; a sentence saying what was handed
    /// over, or why nothing was (the engine refused this device's token to make one).
    static func handOver(to device: SpaceDevice, id: String, in engine: SpaceEngine, space: String, spaceID: String,
                         from keys: X25519KeyPair, admitterID: String) throws(EngineError) -> String {
        let wrapped: WrappedToken
        do {
            wrapped = try engine.client.wrappedToken(by: engine.token, displayName: "vault-space-\(space)", wrapTTL: handoverTTL)
        } catch .forbidden(let why), .rejected(_, let why) {
            return "no engine credential handed over: the engine refused this device's token to make one (\(why)); the new device goes on with the credential it joined with"
        }
        let fields: [String: String]
        do {
            fields = try SpaceHandover.fields(wrapping: wrapped.wrapping, orphan: wrapped.orphan, to: device, from: keys, admitterID: admitterID, spaceID: spaceID)
        } catch {
            throw .malformed("the engine credential could not be sealed to the device: \(error)")
        }
        _ = try engine.write(SpaceEngine.handover(id), fields, cas: nil)
        return wrapped.orphan
            ? "handed it an engine token of its own (single use, for \(handoverTTL / 60) minutes)"
            : "handed it an engine token made as a child of this device's (the engine refuses this device orphan tokens): it ends when this device's token does"
    }

    /// Takes the handover in `fields` (read from `handover/ME` at admission): on success the
    /// space's remote is a new one holding the handed token. Whatever fails is reported in the
    /// space's state, and the device goes on with the remote it joined with.
    func takeHandover(_ fields: [String: String], into state: inout SpaceState, admitters: [String: SpaceDevice]) {
        do {
            let (wrapping, by) = try SpaceHandover.wrapping(in: fields, for: try state.deviceKeys(), spaceID: state.spaceID, admitters: admitters)
            let joined = try remotes.record(RemoteName(state.remote))
            let client = remotes.client(joined.settings)
            let token: EngineToken
            do throws(EngineError) {
                let path = try client.wrappingPath(wrapping)
                guard path.hasPrefix("auth/token/create") else {
                    throw .malformed("the wrapping token handed over by device \(by) wraps the answer of '\(path)', not a new token")
                }
                token = try client.unwrapToken(wrapping)
            } catch .rejected(_, let why) {
                throw VaultError.conflict("the engine credential handed over by device \(by) could not be taken (\(why)): it was unwrapped already or expired. If this device did not take it, someone else holds it: revoke the tokens that device's remote made (display name 'vault-space-\(state.name)')")
            } catch {
                throw remotes.failure(error, joined, doing: "taking the engine credential handed over")
            }
            var settings = joined.settings
            settings.name = try freeRemoteName("space-" + state.name)
            settings.auth = RemoteAuth(method: .token)
            _ = try remotes.add(settings, credential: token.value)
            let handed = SpaceEngine(client: client, token: token, root: state.root)
            try? handed.delete(SpaceEngine.handover(try state.deviceID()))
            logger.info("space '\(state.name)': took the engine credential handed over by device \(by) as remote '\(settings.name)'")
            state.remote = settings.name
        } catch {
            state.report("\(error)")
            logger.warning("space '\(state.name)': \(error)")
        }
    }

    /// `base`, or `base-2`… when a remote of that name exists.
    private func freeRemoteName(_ base: String) throws -> String {
        let base = String(base.prefix(RemoteName.maximumLength - 3))
        for suffix in [""] + (2...99).map({ "-\($0)" }) where (try? remotes.record(RemoteName(base + suffix))) == nil {
            return base + suffix
        }
        throw VaultError.conflict("remotes '\(base)' to '\(base)-99' all exist; remove one with 'vaultctl remote remove'")
    }
}
