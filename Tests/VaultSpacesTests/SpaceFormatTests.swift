import Foundation
import Testing
import VaultCore
import VaultCrypto
@testable import VaultSpaces

/// The space format's promises, each as an engine that wants to break it would try: records open
/// only at their own name, space and generation; a removed generation's key opens nothing newer;
/// a key grant opens only as given by the admitting device; names and secrets never show.
@Suite struct SpaceFormatTests {
    let spaceID = "5e1f0c2d9a8b7c6d5e4f3a2b1c0d9e8f"

    func record(_ secret: String = "hunter2", seq: Int = 1) -> SpaceItemRecord {
        SpaceItemRecord(service: "db.example.com", account: "alice", label: "the database", secret: SecretBytes(utf8: secret),
                        seq: seq, writer: "d1", modified: 1_764_000_000_000)
    }

    @Test func aRecordOpensOnlyAtItsOwnNameSpaceAndGeneration() throws {
        let key = try SpaceKey.generate(generation: 1, spaceID: spaceID)
        let name = try key.entryName(service: "db.example.com", account: "alice")
        #expect(name.count == 64 && name.allSatisfy(\.isHexDigit))
        let fields = try record().sealed(name: name, spaceID: spaceID, key: key)
        #expect(try SpaceItemRecord.opening(fields, name: name, spaceID: spaceID, key: key) == record())
        // Nothing of the item in what the engine keeps.
        for value in fields.values + [name] {
            #expect(!value.contains("alice") && !value.contains("hunter2") && !value.contains("db.example"))
        }
        // Moved to another item's name, into another space, under another generation: refused.
        let other = try key.entryName(service: "db.example.com", account: "bob")
        #expect(throws: SpaceError.self) { try SpaceItemRecord.opening(fields, name: other, spaceID: spaceID, key: key) }
        #expect(throws: SpaceError.self) { try SpaceItemRecord.opening(fields, name: name, spaceID: "another", key: key) }
        let second = try SpaceKey.generate(generation: 2, spaceID: spaceID)
        #expect(throws: SpaceError.missingKey(1)) { try SpaceItemRecord.opening(fields, name: name, spaceID: spaceID, key: second) }
        var relabelled = fields
        relabelled["generation"] = "2"
        #expect(throws: SpaceError.self) { try SpaceItemRecord.opening(relabelled, name: name, spaceID: spaceID, key: second) }
        // Any changed byte of the sealed record.
        var altered = fields
        var bytes = Array(fields["sealed"]!.utf8)
        bytes[20] = bytes[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        altered["sealed"] = String(decoding: bytes, as: UTF8.self)
        #expect(throws: SpaceError.self) { try SpaceItemRecord.opening(altered, name: name, spaceID: spaceID, key: key) }
        #expect(throws: SpaceError.unknownFormat("entry \(name) is not vault-space-1")) {
            try SpaceItemRecord.opening(["format": "other"], name: name, spaceID: spaceID, key: key)
        }
    }

    @Test func entryNamesAreKeyedAndChangeWithTheGeneration() throws {
        let first = try SpaceKey.generate(generation: 1, spaceID: spaceID)
        let again = try SpaceKey(generation: 1, key: first.key, spaceID: spaceID)
        #expect(try first.entryName(service: "s", account: "a") == again.entryName(service: "s", account: "a"))
        #expect(try first.entryName(service: "s", account: "a") != first.entryName(service: "s\u{0}a", account: ""))
        let next = try SpaceKey.generate(generation: 2, spaceID: spaceID)
        #expect(try first.entryName(service: "s", account: "a") != next.entryName(service: "s", account: "a"))
    }

    @Test func theIndexRoundTripsAndRefusesWhatIsNotAnIndex() throws {
        let key = try SpaceKey.generate(generation: 3, spaceID: spaceID)
        let index = SpaceIndex(seq: 7, entries: [String(repeating: "a", count: 64): 2], writer: "d2")
        #expect(try SpaceIndex.opening(index.sealed(spaceID: spaceID, key: key), spaceID: spaceID, key: key) == index)
        // An item record put where the index goes does not open as the index.
        let name = try key.entryName(service: "s", account: "a")
        #expect(throws: SpaceError.self) { try SpaceIndex.opening(record().sealed(name: name, spaceID: spaceID, key: key), spaceID: spaceID, key: key) }
    }

    /// A large index is cut into fields of 60,000 characters (an engine answers at most 64 KiB
    /// per field); all of them, in order, open it, and one missing does not.
    @Test func aLargeIndexIsCutIntoFieldsThatOpenOnlyTogether() throws {
        let key = try SpaceKey.generate(generation: 1, spaceID: spaceID)
        let index = SpaceIndex(seq: 1, entries: Dictionary(uniqueKeysWithValues: (0..<2_000).map { (String(format: "%064x", $0), $0 + 1) }), writer: "d")
        let fields = try index.sealed(spaceID: spaceID, key: key)
        #expect(fields["sealed.2"] != nil && fields.values.allSatisfy { $0.utf8.count <= SealedEntry.chunk })
        #expect(try SpaceIndex.opening(fields, spaceID: spaceID, key: key) == index)
        var cut = fields
        cut["sealed.2"] = nil
        #expect(throws: SpaceError.self) { try SpaceIndex.opening(cut, spaceID: spaceID, key: key) }
    }

    @Test func aKeyGrantOpensOnlyAsGivenByTheAdmittingDevice() throws {
        let admitterKeys = try X25519KeyPair.generate(), joinerKeys = try X25519KeyPair.generate(), engineKeys = try X25519KeyPair.generate()
        let admitter = SpaceDevice(name: "laptop", publicKey: admitterKeys.publicKey, state: .admitted)
        let joiner = SpaceDevice(name: "server", publicKey: joinerKeys.publicKey, state: .pending)
        let key = try SpaceKey.generate(generation: 1, spaceID: spaceID)
        let admitterID = try admitter.id
        let fields = try SpaceKeyGrant.fields(key, to: joiner, from: admitterKeys, admitterID: admitterID, spaceID: spaceID)
        let opened = try SpaceKeyGrant.keys(in: fields, for: joinerKeys, spaceID: spaceID, admitters: [admitterID: admitter])
        #expect(opened.keys[1]?.key == key.key && opened.refused.isEmpty)
        // The engine seals a key of its own choosing, naming the admitter: refused.
        let forged = try SpaceKeyGrant.fields(SpaceKey.generate(generation: 1, spaceID: spaceID), to: joiner, from: engineKeys, admitterID: admitterID, spaceID: spaceID)
        let refused = try SpaceKeyGrant.keys(in: forged, for: joinerKeys, spaceID: spaceID, admitters: [admitterID: admitter])
        #expect(refused.keys.isEmpty && refused.refused.count == 1)
        // A grant from a device that is not admitted, or for another device: not used.
        #expect(try SpaceKeyGrant.keys(in: fields, for: joinerKeys, spaceID: spaceID, admitters: [:]).keys.isEmpty)
        #expect(try SpaceKeyGrant.keys(in: fields, for: engineKeys, spaceID: spaceID, admitters: [admitterID: admitter]).keys.isEmpty)
    }

    @Test func aHandoverOpensOnlyForItsDeviceAsHandedByAnAdmittedOne() throws {
        let admitterKeys = try X25519KeyPair.generate(), joinerKeys = try X25519KeyPair.generate(), engineKeys = try X25519KeyPair.generate()
        let admitter = SpaceDevice(name: "laptop", publicKey: admitterKeys.publicKey, state: .admitted)
        let joiner = SpaceDevice(name: "server", publicKey: joinerKeys.publicKey, state: .pending)
        let admitterID = try admitter.id
        let fields = try SpaceHandover.fields(wrapping: "s.wrapping-token", orphan: true, to: joiner, from: admitterKeys, admitterID: admitterID, spaceID: spaceID)
        #expect(fields["kind"] == "orphan" && !fields.values.contains { $0.contains("wrapping-token") })
        let opened = try SpaceHandover.wrapping(in: fields, for: joinerKeys, spaceID: spaceID, admitters: [admitterID: admitter])
        #expect(opened.wrapping == "s.wrapping-token" && opened.by == admitterID)
        // Another device, another space, an admitter not admitted, or a seal made by the engine: refused.
        #expect(throws: SpaceError.self) { try SpaceHandover.wrapping(in: fields, for: engineKeys, spaceID: spaceID, admitters: [admitterID: admitter]) }
        #expect(throws: SpaceError.self) { try SpaceHandover.wrapping(in: fields, for: joinerKeys, spaceID: "other", admitters: [admitterID: admitter]) }
        var pending = admitter
        pending.state = .pending
        #expect(throws: SpaceError.self) { try SpaceHandover.wrapping(in: fields, for: joinerKeys, spaceID: spaceID, admitters: [admitterID: pending]) }
        let forged = try SpaceHandover.fields(wrapping: "s.engine-token", orphan: true, to: joiner, from: engineKeys, admitterID: admitterID, spaceID: spaceID)
        #expect(throws: SpaceError.self) { try SpaceHandover.wrapping(in: forged, for: joinerKeys, spaceID: spaceID, admitters: [admitterID: admitter]) }
        let notAToken = try SpaceHandover.fields(wrapping: "two words", orphan: true, to: joiner, from: admitterKeys, admitterID: admitterID, spaceID: spaceID)
        #expect(throws: SpaceError.self) { try SpaceHandover.wrapping(in: notAToken, for: joinerKeys, spaceID: spaceID, admitters: [admitterID: admitter]) }
    }

    @Test func aDeviceEntryMustHoldTheKeyOfItsID() throws {
        let keys = try X25519KeyPair.generate()
        let device = SpaceDevice(name: "phone", publicKey: keys.publicKey, state: .pending)
        let id = try device.id
        #expect(try SpaceDevice(fields: device.fields, id: id) == device)
        #expect(throws: SpaceError.self) { try SpaceDevice(fields: device.fields, id: String(repeating: "0", count: 32)) }
        var bad = device.fields
        bad["state"] = "boss"
        #expect(throws: SpaceError.self) { try SpaceDevice(fields: bad, id: id) }
    }

    @Test func fingerprintsAreEightWordsOfTheKeyAndSpace() throws {
        let keys = try X25519KeyPair.generate()
        let words = try FingerprintWords.of(publicKey: keys.publicKey, spaceID: spaceID)
        #expect(words.count == 8 && Set(FingerprintWords.words).count == 256)
        #expect(try FingerprintWords.of(publicKey: keys.publicKey, spaceID: spaceID) == words)
        #expect(try FingerprintWords.of(publicKey: keys.publicKey, spaceID: "other") != words)
        #expect(FingerprintWords.normalized(["Acid  Acorn,", "ACTOR"]) == ["acid", "acorn", "actor"])
    }

    /// A shared item's local state written before `left` existed reads as shared; `left` is
    /// written only when true and read back.
    @Test func aSharedItemsStateReadsOlderRecordsAndKeepsLeft() throws {
        let older = SecretBytes(utf8: #"{"service":"s","account":"a","entry":"e1","seq":3,"version":2,"modified":17,"deleted":false}"#)
        let read = try SpaceState.Tracked.decoding(older)
        #expect(read == SpaceState.Tracked(service: "s", account: "a", entry: "e1", seq: 3, version: 2, modified: 17))
        #expect(!String(decoding: try read.encoded().withUnsafeBytes { Array($0) }, as: UTF8.self).contains("left"))
        let left = SpaceState.Tracked(service: "s", account: "a", entry: "e1", seq: 4, version: 3, deleted: true, left: true)
        #expect(try SpaceState.Tracked.decoding(left.encoded()) == left)
        #expect(throws: SpaceError.self) { try SpaceState.Tracked.decoding(SecretBytes(utf8: #"{"service":"s"}"#)) }
    }
}
