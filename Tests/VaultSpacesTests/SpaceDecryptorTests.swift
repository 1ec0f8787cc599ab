import Foundation
import Testing
import VaultCore
import VaultCrypto
import VaultSpaces
import VaultTestSupport

/// scripts/decrypt-space.py was written from docs/file-format.md ("Spaces on the engine") alone
/// (Python's `cryptography`, no vault code). It reads what vault writes, and it agrees that a
/// device removed before a key rotation opens nothing written afterwards.
@Suite struct SpaceDecryptorTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    let spaceID = "0123456789abcdef0123456789abcdef"

    func decrypt(_ entries: [String: [String: String]], as device: X25519KeyPair, in directory: TemporaryDirectory) throws -> [String: Any] {
        let entriesFile = directory.path + "/entries.json", keyFile = directory.path + "/device.key"
        try JSONSerialization.data(withJSONObject: entries).write(to: URL(fileURLWithPath: entriesFile))
        try Data(device.privateKey.withUnsafeBytes { Array($0) }.lowercaseHex.utf8).write(to: URL(fileURLWithPath: keyFile))
        let result = try ProcessRunner.run([Self.packageRoot + "/.venv/bin/python", Self.packageRoot + "/scripts/decrypt-space.py", entriesFile, keyFile],
                                           environment: ["PATH": "/usr/bin:/bin"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any] ?? [:]
    }

    @Test func theFormatDocumentIsEnoughToReadASpace() throws {
        let directory = TemporaryDirectory()
        let laptopKeys = try X25519KeyPair.generate(), serverKeys = try X25519KeyPair.generate()
        let laptop = SpaceDevice(name: "laptop", publicKey: laptopKeys.publicKey, state: .admitted)
        var server = SpaceDevice(name: "server", publicKey: serverKeys.publicKey, state: .admitted, admittedBy: try laptop.id)
        let first = try SpaceKey.generate(generation: 1, spaceID: spaceID)
        var entries: [String: [String: String]] = [
            "space": ["format": SealedEntry.format, "id": spaceID, "generation": "1"],
            "devices/\(try laptop.id)": laptop.fields, "devices/\(try server.id)": server.fields,
            "keys/\(try laptop.id)": try SpaceKeyGrant.fields(first, to: laptop, from: laptopKeys, admitterID: try laptop.id, spaceID: spaceID),
            "keys/\(try server.id)": try SpaceKeyGrant.fields(first, to: server, from: laptopKeys, admitterID: try laptop.id, spaceID: spaceID),
        ]
        let record = SpaceItemRecord(service: "db", account: "alice", label: "DB", secret: SecretBytes([0, 1, 0xFF]), seq: 2, writer: try laptop.id, modified: 5)
        let name = try first.entryName(service: "db", account: "alice")
        entries["items/" + name] = try record.sealed(name: name, spaceID: spaceID, key: first)
        entries["index"] = try SpaceIndex(seq: 3, entries: [name: 2], writer: try laptop.id).sealed(spaceID: spaceID, key: first)

        entries["handover/\(try server.id)"] = try SpaceHandover.fields(wrapping: "s.wrap", orphan: false, to: server, from: laptopKeys, admitterID: try laptop.id, spaceID: spaceID)

        let read = try decrypt(entries, as: serverKeys, in: directory)
        #expect(read["generations"] as? [Int] == [1] && (read["refused"] as? [String])?.isEmpty == true, "\(read)")
        #expect((read["handover"] as? [String: Any])?["wrapping_token"] as? String == "s.wrap" && (read["handover"] as? [String: Any])?["kind"] as? String == "child")
        let items = read["items"] as? [[String: Any]] ?? []
        #expect(items.count == 1 && items.first?["account"] as? String == "alice" && items.first?["secret"] as? String == "AAH/")
        #expect((read["index"] as? [String: Any])?["seq"] as? Int == 3)

        // The server is removed: generation 2 goes to the laptop only; what is written with it
        // does not open with the server's key, for the decryptor either.
        server.state = .removed
        entries["devices/\(try server.id)"] = server.fields
        let second = try SpaceKey.generate(generation: 2, spaceID: spaceID)
        entries["keys/\(try laptop.id)"]!.merge(try SpaceKeyGrant.fields(second, to: laptop, from: laptopKeys, admitterID: try laptop.id, spaceID: spaceID)) { $1 }
        let newName = try second.entryName(service: "db", account: "alice")
        entries.removeValue(forKey: "items/" + name)
        entries["items/" + newName] = try SpaceItemRecord(service: "db", account: "alice", secret: SecretBytes(utf8: "rotated"), seq: 3, writer: try laptop.id, modified: 6)
            .sealed(name: newName, spaceID: spaceID, key: second)
        let removed = try decrypt(entries, as: serverKeys, in: directory)
        #expect((removed["items"] as? [Any])?.isEmpty == true && (removed["refused"] as? [String])?.contains { $0.contains("no key of generation 2") } == true, "\(removed)")
        let kept = try decrypt(entries, as: laptopKeys, in: directory)
        #expect(kept["generations"] as? [Int] == [1, 2] && (kept["items"] as? [[String: Any]])?.first?["secret"] as? String == "cm90YXRlZA==", "\(kept)")
        // An item record moved to another entry name is refused by the decryptor as by vault.
        entries["items/" + String(repeating: "0", count: 64)] = entries["items/" + newName]
        #expect((try decrypt(entries, as: laptopKeys, in: directory)["refused"] as? [String])?.count == 1)
    }
}
