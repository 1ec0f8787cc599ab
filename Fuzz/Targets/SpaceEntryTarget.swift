import Foundation
import VaultCore
import VaultCrypto
import VaultSpaces

/// A space's entries as a hostile engine serves them (docs/file-format.md, "Spaces on the
/// engine"). The first byte picks the form: a JSON object of fields read as a device entry, a key
/// grant, a sealed item and a sealed index; or the rest as the plaintext inside a sealed item or
/// index, sealed here with the space's key, so the decoders behind authentication are reached
/// too. Whatever is accepted must hold what the format promises.
enum SpaceEntryTarget: FuzzTarget {
    static let name = "space-entry"
    static let maxLength = 8192
    static let spaceID = "00112233445566778899aabbccddeeff"
    static let key = try! SpaceKey(generation: 1, key: SecretBytes([UInt8](repeating: 7, count: 32)), spaceID: spaceID)
    static let device = try! X25519KeyPair(privateKey: SecretBytes([UInt8](repeating: 9, count: 32)))
    static let admitter = SpaceDevice(name: "admitter", publicKey: device.publicKey, state: .admitted)
    static let entry = try! key.entryName(service: "s", account: "a")

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let first = input.first else { return }
        let rest = Data(input.dropFirst())
        switch first % 3 {
        case 0:
            guard let fields = (try? JSONSerialization.jsonObject(with: rest)) as? [String: String] else { return }
            let id = (try? admitter.id) ?? ""
            if let device = try? SpaceDevice(fields: fields, id: id) {
                try FuzzFinding.check(device.publicKey.count == 32 && (try? device.id) == id, "a device entry with another key was accepted")
            }
            if let opened = try? SpaceKeyGrant.keys(in: fields, for: device, spaceID: spaceID, admitters: [id: admitter]) {
                try FuzzFinding.check(opened.keys.values.allSatisfy { $0.key.count == 32 }, "a key grant of the wrong size was accepted")
            }
            try check(try? SpaceItemRecord.opening(fields, name: entry, spaceID: spaceID, key: key))
            _ = try? SpaceIndex.opening(fields, spaceID: spaceID, key: key)
        case 1:
            guard let fields = try? SealedEntry.seal(SecretBytes(rest), as: .item, name: entry, spaceID: spaceID, key: key) else { return }
            try check(try? SpaceItemRecord.opening(fields, name: entry, spaceID: spaceID, key: key))
        default:
            guard let fields = try? SealedEntry.seal(SecretBytes(rest), as: .index, name: SpaceIndex.name, spaceID: spaceID, key: key) else { return }
            if let index = try? SpaceIndex.opening(fields, spaceID: spaceID, key: key) {
                try FuzzFinding.check(index.seq >= 0 && index.entries.values.allSatisfy { $0 > 0 }, "an index with a seq below 1 was accepted")
            }
        }
    }

    static func check(_ record: SpaceItemRecord?) throws(FuzzFinding) {
        guard let record else { return }
        try FuzzFinding.check(record.seq > 0 && !record.service.isEmpty && !record.account.isEmpty && record.secretBytes != nil,
                              "a record with an impossible seq, name or secret was accepted")
        try FuzzFinding.check((try? key.entryName(service: record.service, account: record.account)) == entry, "a record of another item was accepted")
    }
}
