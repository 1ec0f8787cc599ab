import VaultCore
import VaultCrypto
import VaultRemotes
import VaultSpaces

/// Making a space, joining one, admitting a device by its fingerprint words, removing one (the
/// key rotates: later writes use a generation the removed device was never given).
extension SpaceAgent {
    static func root(_ name: String, path: String?) throws -> String {
        let root = path.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? defaultFolder + "/" + name
        if let problem = KVPath.problem(with: root) { throw VaultError.invalidInput("--path: \(problem)") }
        return root
    }

    /// A new space at `path` of `remote`, with this device its first member.
    func create(_ name: String, remote: String, path: String?, deviceName: String) throws -> SpaceState {
        try Self.checkName(name)
        return try rounds.withLock { _ in
            guard (try? state(name)) == nil else { throw VaultError.conflict("this device already has a space named '\(name)'") }
            let root = try Self.root(name, path: path)
            let spaceID = try SecureRandom.bytes(16).lowercaseHex
            let device = try X25519KeyPair.generate()
            let me = SpaceDevice(name: deviceName, publicKey: device.publicKey, state: .admitted, admittedBy: try SpaceDevice.id(of: device.publicKey))
            let id = try me.id
            let key = try SpaceKey.generate(generation: 1, spaceID: spaceID)
            var state = SpaceState(name: name, remote: remote, root: root, spaceID: spaceID, deviceName: deviceName, device: device)
            state.hold(key)
            state.admitted = true
            let grant = try SpaceKeyGrant.fields(key, to: me, from: device, admitterID: id, spaceID: spaceID)
            let membership = try SpaceMembership.sealed(me, spaceID: spaceID, key: key)
            let index = try SpaceIndex(writer: id).sealed(spaceID: spaceID, key: key)
            do {
                state.indexVersion = try engine(remote, root: root, doing: "creating space '\(name)'") { engine throws(EngineError) in
                    _ = try engine.write(SpaceEngine.space, ["format": SealedEntry.format, "id": spaceID, "generation": "1"], cas: 0)
                    _ = try engine.write(SpaceEngine.device(id), me.fields, cas: nil)
                    _ = try engine.write(SpaceEngine.keys(id), grant, cas: nil)
                    _ = try engine.write(SpaceEngine.member(id, generation: 1), membership, cas: nil)
                    return try engine.write(SpaceEngine.index, index, cas: 0)
                }
            } catch let error as VaultError where error.code == .conflict {
                throw VaultError.conflict("remote '\(remote)' already holds a space at \(root): join it with 'vaultctl space join \(name) --remote \(remote)\(path.map { " --path \($0)" } ?? "")', or choose another --path")
            }
            try save(state)
            logger.info("space '\(name)' created on remote '\(remote)' at \(root)")
            return state
        }
    }

    /// Asks to join the space at `path` of `remote`: this device's key pair (kept across tries)
    /// listed as pending. Answers the state and the fingerprint words to compare on a member.
    func join(_ name: String, remote: String, path: String?, deviceName: String) throws -> (SpaceState, [String]) {
        try Self.checkName(name)
        return try rounds.withLock { _ in
            if let existing = try? state(name) {
                guard !existing.admitted else { throw VaultError.conflict("this device is already in space '\(name)'") }
                return (existing, try FingerprintWords.of(publicKey: existing.deviceKeys().publicKey, spaceID: existing.spaceID))
            }
            let root = try Self.root(name, path: path)
            let device = try X25519KeyPair.generate()
            let me = SpaceDevice(name: deviceName, publicKey: device.publicKey, state: .pending)
            let id = try me.id
            let spaceID = try engine(remote, root: root, doing: "joining space '\(name)'") { engine throws(EngineError) -> String? in
                guard let header = try engine.read(SpaceEngine.space) else { return nil }
                guard header.fields["format"] == SealedEntry.format, let spaceID = header.fields["id"], spaceID.count == 32,
                      spaceID.allSatisfy(\.isHexDigit) else {
                    throw .malformed("\(root)/space is not a space of this vault")
                }
                _ = try engine.write(SpaceEngine.device(id), me.fields, cas: 0)
                return spaceID
            }
            guard let spaceID else {
                throw VaultError.absent("remote '\(remote)' holds no space at \(root): create it there with 'vaultctl space create \(name) --remote \(remote)', or give its --path")
            }
            let state = SpaceState(name: name, remote: remote, root: root, spaceID: spaceID, deviceName: deviceName, device: device)
            try save(state)
            logger.info("space '\(name)': asked to join as device \(id)")
            return (state, try FingerprintWords.of(publicKey: device.publicKey, spaceID: spaceID))
        }
    }

    /// The space's state, with its admission looked for first while it waits (what `space join`
    /// polls): under the rounds' lock, so a round and a poll never take one handover twice. An
    /// admitted device's state is read without waiting for a round.
    func stateCheckingAdmission(_ name: String) throws -> SpaceState {
        let current = try state(name)
        if current.admitted { return current }
        return try rounds.withLock { _ in
            var state = try state(name)
            if !state.admitted, (try? checkAdmission(&state)) == true { try save(state) }
            return state
        }
    }

    /// Looks for the keys an admitting device gave this one; true once it holds a key. Grants
    /// that do not open as given by a member are reported and not used. A device waiting to be
    /// admitted takes the keys of the device that admits it (what the fingerprint words vouch
    /// for); an admitted one takes generation N only from a device whose membership of
    /// generation N-1 opens (`SpaceMembership`), so neither the engine nor a device removed
    /// before N-1 can hand it a key.
    func checkAdmission(_ state: inout SpaceState) throws -> Bool {
        let device = try state.deviceKeys()
        let me = try state.deviceID()
        let wasAdmitted = state.admitted
        let held = state
        let (grants, devices, handover, memberships) = try engine(state.remote, root: state.root, doing: "checking the keys of space '\(state.name)'") { engine throws(EngineError) in
            let grants = try engine.read(SpaceEngine.keys(me))?.fields ?? [:]
            let devices = try Self.devices(engine).devices
            var memberships: [String: [String: String]] = [:]
            for (field, by) in grants where wasAdmitted && field.hasPrefix("g") && field.hasSuffix("_by") && devices[by] != nil {
                guard let generation = Int(field.dropFirst().dropLast(3)), (2...SpaceLimits.maxGeneration).contains(generation),
                      held.keys[String(generation)] == nil else { continue }
                let name = SpaceMembership.name(by, generation: generation - 1)
                memberships[name] = try engine.read(SpaceEngine.member(by, generation: generation - 1))?.fields
            }
            return (grants, devices, wasAdmitted ? nil : try engine.read(SpaceEngine.handover(me))?.fields, memberships)
        }
        let admitters = devices.filter { $0.value.state == .admitted }
        let opened = try wasAdmitted
            ? SpaceKeyGrant.keys(in: grants, for: device, spaceID: state.spaceID) { id, generation, opened in
                guard let sender = devices[id], sender.state != .removed else { return nil }
                // A generation held already is opened only to be compared with the one held.
                if held.keys[String(generation)] != nil { return sender }
                guard let key = opened[generation - 1] ?? (try? held.key(generation - 1)),
                      let fields = memberships[SpaceMembership.name(id, generation: generation - 1)],
                      (try? SpaceMembership.check(fields, device: sender, spaceID: held.spaceID, key: key)) != nil else { return nil }
                return sender
            }
            : SpaceKeyGrant.keys(in: grants, for: device, spaceID: state.spaceID, admitters: admitters)
        for problem in opened.refused { state.report(problem) }
        for key in opened.keys.values.sorted(by: { $0.generation < $1.generation }) {
            guard let known = try? state.key(key.generation) else {
                state.hold(key)
                continue
            }
            if known.key != key.key {
                state.report("the engine holds another generation \(key.generation) key for this device than the one it took: the one it took is kept")
            }
        }
        if !state.admitted, !opened.keys.isEmpty {
            state.admitted = true
            logger.info("space '\(state.name)': admitted")
            if let handover { takeHandover(handover, into: &state, admitters: admitters) }
        }
        return state.admitted
    }

    /// Admits the pending device whose fingerprint is `words`: every key generation this device
    /// holds is sealed to it, an engine credential handed over (`handOver`), and its entry marked
    /// admitted. Answers the device and what was handed over.
    func admit(_ name: String, words: [String]) throws -> (SpaceDevice, String) {
        let typed = FingerprintWords.normalized(words)
        guard typed.count == FingerprintWords.count else {
            throw VaultError.invalidInput("a fingerprint is \(FingerprintWords.count) words, as 'vaultctl space join' printed them; \(typed.count) were given")
        }
        return try rounds.withLock { _ in
            let state = try state(name)
            guard state.admitted else { throw VaultError.invalidInput("this device is not admitted to space '\(name)' yet, so it cannot admit others") }
            let device = try state.deviceKeys()
            let me = try state.deviceID()
            let keys = try state.keys.keys.compactMap(Int.init).sorted().map { try state.key($0) }
            let current = try state.key(state.generation)
            let outcome = try engine(state.remote, root: state.root, doing: "admitting a device to space '\(name)'") { engine throws(EngineError) -> (SpaceDevice, String)? in
                let pending = try Self.devices(engine).devices.filter { $0.value.state == .pending }
                guard let (id, found) = pending.first(where: { (try? FingerprintWords.of(publicKey: $0.value.publicKey, spaceID: state.spaceID)) == typed }) else {
                    return nil
                }
                // The handover first: a device that finds its keys finds its credential too.
                let handedOver = try Self.handOver(to: found, id: id, in: engine, space: name, spaceID: state.spaceID, from: device, admitterID: me)
                var grant = try engine.read(SpaceEngine.keys(id))?.fields ?? [:]
                let membership: [String: String]
                do {
                    for key in keys { grant.merge(try SpaceKeyGrant.fields(key, to: found, from: device, admitterID: me, spaceID: state.spaceID)) { $1 } }
                    membership = try SpaceMembership.sealed(found, spaceID: state.spaceID, key: current)
                } catch {
                    throw .malformed("the keys could not be sealed to the device: \(error)")
                }
                _ = try engine.write(SpaceEngine.member(id, generation: current.generation), membership, cas: nil)
                _ = try engine.write(SpaceEngine.keys(id), grant, cas: nil)
                var admitted = found
                admitted.state = .admitted
                admitted.admittedBy = me
                _ = try engine.write(SpaceEngine.device(id), admitted.fields, cas: nil)
                return (admitted, handedOver)
            }
            guard let (admitted, handedOver) = outcome else {
                throw VaultError.absent("no device waiting to join space '\(name)' has the fingerprint '\(typed.joined(separator: " "))': check the words the joining machine printed, and that it is still waiting")
            }
            logger.info("space '\(name)': admitted device '\(admitted.name)'; \(handedOver)")
            return (admitted, handedOver)
        }
    }
}
