import VaultCore
import VaultCrypto
import VaultRemotes
import VaultSpaces

/// Removing a device: the key rotates, and later writes use a generation the removed device
/// was never given.
extension SpaceAgent {
    /// Removes a device (by id, or by a name no other device has): its entry marked removed, a
    /// new key generation given to every other member, each member's membership of the new
    /// generation written, and the index written under it at once, so every device learns the
    /// rotation at its next round. The members are those whose membership of the current
    /// generation opens, not what the engine's device entries say. Items use the new generation
    /// from now on; this device writes each of them again at its next round. Answers the removed
    /// device.
    func removeDevice(_ name: String, device wanted: String) throws -> SpaceDevice {
        try rounds.withLock { _ in
            var state = try state(name)
            guard state.admitted else { throw VaultError.invalidInput("this device is not admitted to space '\(name)' yet") }
            let device = try state.deviceKeys()
            let me = try state.deviceID()
            let current = try state.key(state.generation)
            guard current.generation < SpaceLimits.maxGeneration else { throw VaultError.invalidInput("space '\(name)' has rotated its key as often as it may") }
            let next = try SpaceKey.generate(generation: current.generation + 1, spaceID: state.spaceID)
            let devices = try engine(state.remote, root: state.root, doing: "listing the devices of space '\(name)'") { engine throws(EngineError) in
                try Self.devices(engine).devices
            }
            let matching = devices.filter { ($0.key == wanted || $0.value.name == wanted) && $0.value.state != .removed && $0.key != me }
            guard let (id, found) = matching.first else {
                throw VaultError.absent("space '\(name)' has no other device '\(wanted.replacingControlCharacters())' to remove: 'vaultctl space status \(name)' lists them")
            }
            guard matching.count == 1 else {
                throw VaultError.invalidInput("\(matching.count) devices of space '\(name)' are named '\(wanted.replacingControlCharacters())': remove one by its id (\(matching.keys.sorted().joined(separator: ", ")); 'vaultctl space status \(name) --json' lists them)")
            }
            let removed = try engine(state.remote, root: state.root, doing: "removing a device from space '\(name)'") { engine throws(EngineError) -> SpaceDevice in
                var gone = found
                gone.state = .removed
                _ = try engine.write(SpaceEngine.device(id), gone.fields, cas: nil)
                for (other, member) in devices where other != id && member.state != .removed {
                    guard let fields = try engine.read(SpaceEngine.member(other, generation: current.generation))?.fields,
                          (try? SpaceMembership.check(fields, device: member, spaceID: state.spaceID, key: current)) != nil else { continue }
                    var grant = try engine.read(SpaceEngine.keys(other))?.fields ?? [:]
                    let membership: [String: String]
                    do {
                        grant.merge(try SpaceKeyGrant.fields(next, to: member, from: device, admitterID: me, spaceID: state.spaceID)) { $1 }
                        membership = try SpaceMembership.sealed(member, spaceID: state.spaceID, key: next)
                    } catch {
                        throw .malformed("the new key could not be sealed to device \(other): \(error)")
                    }
                    _ = try engine.write(SpaceEngine.member(other, generation: next.generation), membership, cas: nil)
                    _ = try engine.write(SpaceEngine.keys(other), grant, cas: nil)
                }
                var header = try engine.read(SpaceEngine.space)?.fields ?? [:]
                header["generation"] = String(next.generation)
                _ = try engine.write(SpaceEngine.space, header, cas: nil)
                return gone
            }
            state.hold(next)
            // The index under the new generation now: the others take the new key at their next
            // round, and from then on refuse an index of an older one.
            try record([:], in: &state, writer: me, oldest: current.generation)
            // Every item is written again under the new generation at the next round.
            for position in state.items.indices where state.items[position].seq > 0 { state.items[position].modified = nil }
            try save(state)
            logger.info("space '\(name)': removed device '\(removed.name)'; key generation \(next.generation)")
            return removed
        }
    }
}
