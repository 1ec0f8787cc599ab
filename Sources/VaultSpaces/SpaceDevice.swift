import Foundation
import VaultCore
import VaultCrypto

/// A device of a space as the engine lists it (`devices/ID`): its name, its X25519 public key
/// (base64), its state (`pending` until admitted, `admitted`, `removed`) and the device that
/// admitted it. The id is the first 16 bytes of SHA-256 of the public key, in hex, so an entry
/// whose key does not give its id is refused.
public struct SpaceDevice: Sendable, Equatable {
    public enum State: String, Sendable {
        case pending
        case admitted
        case removed
    }

    public var name: String
    public var publicKey: [UInt8]
    public var state: State
    public var admittedBy: String

    public init(name: String, publicKey: [UInt8], state: State, admittedBy: String = "") {
        self.name = name
        self.publicKey = publicKey
        self.state = state
        self.admittedBy = admittedBy
    }

    public var id: String { get throws { try Self.id(of: publicKey) } }

    public static func id(of publicKey: [UInt8]) throws -> String {
        try SHA256.hash(Array("vault device id v1".utf8) + [0] + publicKey).prefix(16).lowercaseHex
    }

    public var fields: [String: String] {
        ["name": name, "public_key": Data(publicKey).base64EncodedString(), "state": state.rawValue, "admitted_by": admittedBy]
    }

    /// The device at entry `id`: refused when its key does not give `id`, or a field is missing.
    public init(fields: [String: String], id: String) throws {
        guard let name = fields["name"], name.utf8.count <= 256, !name.unicodeScalars.contains(where: { $0.value < 0x20 }),
              let key = fields["public_key"].flatMap({ Data(base64Encoded: $0) }), key.count == X25519KeyPair.keySize,
              let state = fields["state"].flatMap(State.init(rawValue:)) else {
            throw SpaceError.tampered("device entry \(id) is not a device")
        }
        self.init(name: name, publicKey: Array(key), state: state, admittedBy: fields["admitted_by"] ?? "")
        guard try self.id == id else { throw SpaceError.tampered("device entry \(id) holds another device's key") }
    }
}

/// The keys a device was given (`keys/ID`): field `gN` the generation-N space key sealed to the
/// device (`DeviceSeal`) by the admitting device (field `gN_by`, its id), whose static key the
/// seal is made with, so the engine cannot hand a device a key of its own choosing.
public enum SpaceKeyGrant {
    static func context(spaceID: String, device: String, generation: Int) -> [UInt8] {
        Array("vault space key v1".utf8) + [0] + Array(spaceID.utf8) + [0] + Array(device.utf8) + [0] + Array(String(generation).utf8)
    }

    /// The fields that give `key` to `device`, sealed by `admitter` (its id `admitterID`).
    public static func fields(_ key: SpaceKey, to device: SpaceDevice, from admitter: X25519KeyPair, admitterID: String, spaceID: String) throws -> [String: String] {
        let sealed = try DeviceSeal.seal(key.key, to: device.publicKey, from: admitter,
                                         context: context(spaceID: spaceID, device: try device.id, generation: key.generation))
        return ["g\(key.generation)": Data(sealed).base64EncodedString(), "g\(key.generation)_by": admitterID]
    }

    /// Every generation in `fields` this device can open, each checked against the admitting
    /// device's key (`admitters`: admitted devices by id); a grant from an unknown device or
    /// that does not open is reported, not used. What a device not yet admitted accepts.
    public static func keys(in fields: [String: String], for device: X25519KeyPair, spaceID: String,
                            admitters: [String: SpaceDevice]) throws -> (keys: [Int: SpaceKey], refused: [String]) {
        try keys(in: fields, for: device, spaceID: spaceID) { id, _, _ in admitters[id].flatMap { $0.state == .admitted ? $0 : nil } }
    }

    /// Every generation in `fields` this device can open, lowest first, each as sealed by the
    /// device `admitter` answers for its `gN_by` id, generation and the keys opened before it
    /// here (nil: that device may not give that generation, reported and not used).
    public static func keys(in fields: [String: String], for device: X25519KeyPair, spaceID: String,
                            admitter: (_ id: String, _ generation: Int, _ opened: [Int: SpaceKey]) throws -> SpaceDevice?) throws -> (keys: [Int: SpaceKey], refused: [String]) {
        let me = try SpaceDevice.id(of: device.publicKey)
        var keys: [Int: SpaceKey] = [:], refused: [String] = [], listed: [(generation: Int, sealed: Data, by: String?)] = []
        for (field, value) in fields where field.hasPrefix("g") && !field.hasSuffix("_by") {
            guard let generation = Int(field.dropFirst()), (1...SpaceLimits.maxGeneration).contains(generation), String(generation) == field.dropFirst(),
                  let sealed = Data(base64Encoded: value) else {
                refused.append("key grant field \(field.replacingControlCharacters().prefix(40)) is not a grant")
                continue
            }
            listed.append((generation, sealed, fields[field + "_by"]))
        }
        for grant in listed.sorted(by: { $0.generation < $1.generation }) {
            guard let by = grant.by, let sender = try admitter(by, grant.generation, keys) else {
                refused.append("the generation \(grant.generation) key was not given by a member of the space")
                continue
            }
            do {
                let key = try DeviceSeal.open(Array(grant.sealed), with: device, from: sender.publicKey,
                                              context: context(spaceID: spaceID, device: me, generation: grant.generation))
                keys[grant.generation] = try SpaceKey(generation: grant.generation, key: key, spaceID: spaceID)
            } catch {
                refused.append("the generation \(grant.generation) key does not open as given by device \(by.replacingControlCharacters().prefix(40))")
            }
        }
        return (keys, refused)
    }
}
