import Foundation
import VaultCore
import VaultCrypto

/// The engine credential an admitting device hands a new one (`handover/ID`): field `token` a
/// wrapping token (response wrapping: single use, expiring) sealed to the new device
/// (`DeviceSeal`, with the admitting device's static key, so the engine and other readers of
/// the mount can neither read it nor put one of their own there), field `by` the admitting
/// device's id, field `kind` `orphan` or `child` (what the engine made: a child token ends with
/// the admitting device's token).
public enum SpaceHandover {
    static func context(spaceID: String, device: String) -> [UInt8] {
        Array("vault space handover v1".utf8) + [0] + Array(spaceID.utf8) + [0] + Array(device.utf8)
    }

    public static func fields(wrapping: String, orphan: Bool, to device: SpaceDevice, from admitter: X25519KeyPair, admitterID: String,
                              spaceID: String) throws -> [String: String] {
        let sealed = try DeviceSeal.seal(SecretBytes(utf8: wrapping), to: device.publicKey, from: admitter,
                                         context: context(spaceID: spaceID, device: try device.id))
        return ["token": Data(sealed).base64EncodedString(), "by": admitterID, "kind": orphan ? "orphan" : "child"]
    }

    /// The wrapping token in `fields`, checked to be sealed to `device` by the admitted device it
    /// names; throws `SpaceError.tampered` otherwise.
    public static func wrapping(in fields: [String: String], for device: X25519KeyPair, spaceID: String,
                                admitters: [String: SpaceDevice]) throws -> (wrapping: String, by: String) {
        let me = try SpaceDevice.id(of: device.publicKey)
        guard let by = fields["by"], let admitter = admitters[by], admitter.state == .admitted else {
            throw SpaceError.tampered("the engine credential handed to this device was not handed by an admitted device")
        }
        guard let sealed = fields["token"].flatMap({ Data(base64Encoded: $0) }),
              let opened = try? DeviceSeal.open(Array(sealed), with: device, from: admitter.publicKey, context: context(spaceID: spaceID, device: me)) else {
            throw SpaceError.tampered("the engine credential handed to this device does not open as handed by device \(by)")
        }
        guard let text = opened.utf8String, text.isTokenShaped else {
            throw SpaceError.tampered("the engine credential handed to this device is not a token")
        }
        return (text, by)
    }
}
