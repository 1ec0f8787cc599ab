import Foundation
import Testing
import VaultCore
import VaultCrypto
@testable import VaultStores

/// Format version 2 (docs/file-format.md): attributes and content types on disk, version 1 files
/// read and upgraded at their next write, hostile metadata refused.
@Suite struct FileFormatUpgradeTests {
    /// Written by the version 1 writer (main at 3e55a9c, vault-store-tool `set`/`set-session`, the
    /// test passphrase, minimum scrypt cost): github.com/octocat, ünï/☃, session.example/alice.
    static let fixture = IndependentDecryptorTests.packageRoot + "/Tests/Fixtures/vault-v1.db"

    static func version(of path: String) -> Int {
        let bytes = readBytes(path)
        return bytes.count < 10 ? -1 : Int(bytes[8]) << 8 | Int(bytes[9])
    }

    static func decrypt(_ path: String, _ directory: TemporaryDirectory) throws -> [String: [String: Any]] {
        let result = try runDecryptor([path, passphraseFile(in: directory)])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: items.map { ("\($0["service"] ?? "")/\($0["account"] ?? "")", $0) })
    }

    @Test func aVersion1FileIsReadThenUpgradedByItsNextWrite() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let original = readBytes(Self.fixture)
        #expect(Self.version(of: Self.fixture) == 1)
        writeBytes(original, to: path)
        #expect(try Self.decrypt(path, directory).count == 3)

        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        #expect(try store.get(key("github.com", "octocat")).secret == SecretBytes(utf8: "v1-secret-one"))
        #expect(try store.get(key("ünï", "☃")).secret == SecretBytes(utf8: "ünïcødé ☃"))
        let session = try store.get(key("session.example", "alice"))
        #expect(session.info.kind == .session && session.info.attributes.isEmpty && session.info.contentType == "text/plain")
        // Reading (unlock, get, list) writes nothing.
        _ = try store.list(service: nil)
        #expect(readBytes(path) == original)

        let created = try store.get(key("github.com", "octocat")).info.created
        try store.set(key("docker", "me"), secret: SecretBytes(utf8: "new"), changes: ItemChanges(attributes: ["server": "https://r.example"], contentType: "application/json"))
        #expect(Self.version(of: path) == 2)

        let reopened = fastStore(path)
        try reopened.unlock(passphrase: testPassphrase)
        #expect(try reopened.list(service: nil).count == 4)
        let old = try reopened.get(key("github.com", "octocat"))
        #expect(old.secret == SecretBytes(utf8: "v1-secret-one") && old.info.created == created && old.info.attributes.isEmpty)
        #expect(try reopened.get(key("session.example", "alice")).info.kind == .session)
        let new = try reopened.get(key("docker", "me")).info
        #expect(new.attributes == ["server": "https://r.example"] && new.contentType == "application/json")

        let decrypted = try Self.decrypt(path, directory)
        #expect(decrypted.count == 4)
        #expect(decrypted["docker/me"]?["attributes"] as? [String: String] == ["server": "https://r.example"])
        #expect(decrypted["docker/me"]?["content_type"] as? String == "application/json")
        #expect(decrypted["github.com/octocat"]?["secret_hex"] as? String == "76312d7365637265742d6f6e65")
    }

    /// A passphrase change is a write too: the version 1 file becomes version 2 under the new one.
    @Test func changingThePassphraseOfAVersion1FileUpgradesIt() throws {
        for rekey in [true, false] {
            let directory = TemporaryDirectory()
            let path = directory.file("vault.db")
            writeBytes(readBytes(Self.fixture), to: path)
            let newPassphrase = SecretBytes(utf8: "another passphrase")
            try fastStore(path).changePassphrase(current: testPassphrase, new: newPassphrase, rekey: rekey)
            #expect(Self.version(of: path) == 2)
            let store = fastStore(path)
            try store.unlock(passphrase: newPassphrase)
            #expect(try store.get(key("ünï", "☃")).secret == SecretBytes(utf8: "ünïcødé ☃"), "rekey \(rekey)")
        }
    }

    /// Another process puts the version 1 file back while this store is open: it reads it, and
    /// its next write (no passphrase at hand) upgrades it with the key block made at unlock.
    @Test func aVersion1FilePutBackUnderAnOpenStoreIsUpgradedByItsNextWrite() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        writeBytes(readBytes(Self.fixture), to: path)
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("extra", "one"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        writeBytes(readBytes(Self.fixture), to: directory.file("put-back"))
        #expect(rename(directory.file("put-back"), path) == 0)
        #expect(try store.list(service: nil).count == 3)
        try store.set(key("extra", "two"), secret: SecretBytes(utf8: "y"), changes: ItemChanges())
        #expect(Self.version(of: path) == 2)
        let reopened = fastStore(path)
        try reopened.unlock(passphrase: testPassphrase)
        #expect(try reopened.list(service: nil).map(\.key.account).sorted() == ["alice", "octocat", "two", "☃"])
    }

    /// The format's version field is where a version 1 reader looks, so it refuses a version 2
    /// file as a newer format (its check: version > 1); this reader does the same one step on.
    @Test func aNewerVersionThanTwoIsRefusedAsNewer() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        try store.set(key("a", "b"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        var bytes = readBytes(path)
        #expect(bytes[8] == 0 && bytes[9] == 2)
        bytes[9] = 3
        writeBytes(bytes, to: path)
        #expect(DamagedFileTests.openError(path) == .unsupportedVersion(path: path, found: 3, supported: 2))
        bytes[9] = 0
        writeBytes(bytes, to: path)
        #expect(DamagedFileTests.openError(path)?.code == .corruptVault)
    }

    /// Metadata plaintexts a writer with the key could seal but vault never writes: each is refused
    /// as damage, never taken as attributes.
    @Test func hostileAttributeEncodingsAreRefused() throws {
        let dataKey = try SecureRandom.secretBytes(AESGCM.keySize)
        let vaultID = try SecureRandom.bytes(VaultFileFormat.vaultIDSize), itemID = try SecureRandom.bytes(VaultFileFormat.itemIDSize)
        func metadata(_ pairs: [(String, String)], count: UInt32? = nil, contentType: String = "text/plain", trailing: [UInt8] = []) throws -> SealedRecord {
            var writer = ByteWriter()
            writer.append(UInt8(0))
            writer.append(Int64(1))
            writer.append(Int64(2))
            for field in ["svc", "acct", "label", ""] { writer.append(string: field) }
            writer.append(count ?? UInt32(pairs.count))
            for (name, value) in pairs {
                writer.append(string: name)
                writer.append(string: value)
            }
            writer.append(string: contentType)
            writer.append(raw: trailing)
            let box = try AESGCM.seal(writer.bytes, key: dataKey, authenticating: VaultFileFormat.metadataAAD(version: 2, vaultID: vaultID, itemID: itemID))
            return SealedRecord(itemID: itemID, metadata: box, secret: box)
        }
        let good = try metadata([("a", "1"), ("b", "")]).openMetadata(version: 2, vaultID: vaultID, key: dataKey)
        #expect(good.attributes == ["a": "1", "b": ""] && good.contentType == "text/plain")

        let hostile: [(String, SealedRecord)] = [
            ("unsorted", try metadata([("b", "1"), ("a", "1")])),
            ("twice", try metadata([("a", "1"), ("a", "2")])),
            ("canonically equal", try metadata([("e\u{301}", "1"), ("\u{e9}", "2")])),
            ("key name", try metadata([("service", "x")])),
            ("empty name", try metadata([("", "x")])),
            ("control character", try metadata([("a", "x\u{1b}[2J")])),
            ("too many", try metadata((0...ItemLimits.maxAttributes).map { (String(format: "a%03d", $0), "v") })),
            ("count past the data", try metadata([("a", "1")], count: 2)),
            ("huge count", try metadata([], count: .max)),
            ("value too long", try metadata([("a", String(repeating: "v", count: ItemLimits.maxAttributeValueBytes + 1))])),
            ("empty content type", try metadata([], contentType: "")),
            ("control in content type", try metadata([], contentType: "text/plain\n")),
            ("trailing bytes", try metadata([], trailing: [0])),
        ]
        for (what, record) in hostile {
            #expect(throws: ByteReader.Error.self, "\(what)") { try record.openMetadata(version: 2, vaultID: vaultID, key: dataKey) }
        }
        // A version 2 plaintext sealed for version 1 (or the reverse) does not open at all.
        #expect(throws: CryptoError.self) { try metadata([]).openMetadata(version: 1, vaultID: vaultID, key: dataKey) }
    }
}
