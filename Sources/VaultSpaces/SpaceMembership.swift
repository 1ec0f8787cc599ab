import Foundation
import VaultCore

/// That a device is a member of the space at a key generation (`members/ID/N`): a sealed entry
/// of kind `member`, name `ID/N`, under generation N's key, whose plaintext is the device's
/// public key. Written by the admitting device at admission, and for every remaining member by
/// the device that removes one (at the new generation). Only a holder of generation N's key can
/// make one, so neither the engine nor a device removed before N can.
public enum SpaceMembership {
    public static func name(_ id: String, generation: Int) -> String { "\(id)/\(generation)" }

    public static func sealed(_ device: SpaceDevice, spaceID: String, key: SpaceKey) throws -> [String: String] {
        let plaintext = SecretBytes(Array(Data(device.publicKey).base64EncodedString().utf8))
        return try SealedEntry.seal(plaintext, as: .member, name: name(try device.id, generation: key.generation), spaceID: spaceID, key: key)
    }

    /// Throws `SpaceError` unless `fields` say `device` is a member at `key`'s generation.
    public static func check(_ fields: [String: String], device: SpaceDevice, spaceID: String, key: SpaceKey) throws {
        let id = try device.id
        let plaintext = try SealedEntry.open(fields, as: .member, name: name(id, generation: key.generation), spaceID: spaceID, key: key)
        guard plaintext == SecretBytes(Array(Data(device.publicKey).base64EncodedString().utf8)) else {
            throw SpaceError.tampered("the membership of device \(id) names another key")
        }
    }
}
