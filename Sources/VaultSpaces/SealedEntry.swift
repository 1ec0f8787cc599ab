import Foundation
import VaultCore
import VaultCrypto

/// How an item record or the index sits in the engine: the KV v2 fields `format`
/// (`vault-space-1`), `generation` (decimal) and `sealed` (base64 of nonce ‖ AES-256-GCM
/// ciphertext ‖ tag, under the generation's sealing key), cut after every `chunk` characters
/// into `sealed`, `sealed.2`, `sealed.3`, … so that no field outgrows what an engine's answer
/// may hold per field (a large index). The authenticated data binds the entry
/// to its place: `vault space ENTRY v1` ‖ 0 ‖ space id ‖ 0 ‖ entry name ‖ 0 ‖ generation, so a
/// record moved to another name, another space or another generation does not open.
public enum SealedEntry {
    public static let format = "vault-space-1"
    public static let chunk = 60_000

    public enum Kind: String, Sendable {
        case item
        case index
        case member
    }

    public static func seal(_ plaintext: SecretBytes, as kind: Kind, name: String, spaceID: String, key: SpaceKey) throws -> [String: String] {
        let sealed = try plaintext.withUnsafeBytes {
            try AESGCM.sealCombined($0, key: key.sealingKey, authenticating: aad(kind, name: name, spaceID: spaceID, generation: key.generation))
        }
        var fields = ["format": format, "generation": String(key.generation)]
        let text = Array(Data(sealed).base64EncodedString().utf8)
        for (index, start) in stride(from: 0, to: max(text.count, 1), by: chunk).enumerated() {
            fields[index == 0 ? "sealed" : "sealed.\(index + 1)"] = String(decoding: text[start..<min(start + chunk, text.count)], as: UTF8.self)
        }
        return fields
    }

    /// The generation `fields` claim to be sealed under (to find its key); throws for fields that
    /// are not a sealed entry of this format.
    public static func generation(of fields: [String: String], name: String) throws -> Int {
        guard fields["format"] == format else { throw SpaceError.unknownFormat("entry \(name) is not \(format)") }
        guard let text = fields["generation"], let generation = Int(text), generation > 0, generation <= SpaceLimits.maxGeneration, String(generation) == text else {
            throw SpaceError.tampered("entry \(name) names no key generation")
        }
        return generation
    }

    public static func open(_ fields: [String: String], as kind: Kind, name: String, spaceID: String, key: SpaceKey) throws -> SecretBytes {
        guard try generation(of: fields, name: name) == key.generation else { throw SpaceError.missingKey(try generation(of: fields, name: name)) }
        guard var text = fields["sealed"] else { throw SpaceError.tampered("entry \(name) holds no sealed record") }
        var part = 2
        while let more = fields["sealed.\(part)"] {
            text += more
            part += 1
        }
        guard let sealed = Data(base64Encoded: text),
              sealed.count >= AESGCM.nonceSize + AESGCM.tagSize else { throw SpaceError.tampered("entry \(name) holds no sealed record") }
        let bytes = Array(sealed)
        let box = AESGCM.SealedBox(nonce: Array(bytes[0..<AESGCM.nonceSize]),
                                   ciphertext: Array(bytes[AESGCM.nonceSize..<(bytes.count - AESGCM.tagSize)]),
                                   tag: Array(bytes[(bytes.count - AESGCM.tagSize)...]))
        do {
            return try AESGCM.open(box, key: key.sealingKey, authenticating: aad(kind, name: name, spaceID: spaceID, generation: key.generation))
        } catch CryptoError.authenticationFailed {
            throw SpaceError.tampered("entry \(name) does not open with this space's key at this name (altered, or moved from another name or space)")
        }
    }

    static func aad(_ kind: Kind, name: String, spaceID: String, generation: Int) -> [UInt8] {
        Array("vault space \(kind.rawValue) v1".utf8) + [0] + Array(spaceID.utf8) + [0] + Array(name.utf8) + [0] + Array(String(generation).utf8)
    }
}
