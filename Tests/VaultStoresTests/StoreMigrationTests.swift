import Testing
import VaultCore
import VaultStores

@Suite struct StoreMigrationTests {
    func fileStore(_ directory: TemporaryDirectory) throws -> EncryptedFileStore {
        let store = fastStore(directory.file("vault.db"))
        try store.unlock(passphrase: testPassphrase)
        return store
    }

    @Test func everyItemMovesWithItsMetadataAndTheOriginalsGo() throws {
        let directory = TemporaryDirectory()
        let source = InMemoryStore(), destination = try fileStore(directory)
        try source.set(key("a", "1"), secret: SecretBytes([0, 1, 2]), changes: ItemChanges(label: "L", comment: "C", kind: .session))
        try source.set(key("b", "2"), secret: .empty, changes: ItemChanges())
        let report = try StoreMigration.migrate(from: source, to: destination)
        #expect(report == StoreMigration.Report(copied: 2, alreadyPresent: 0, removed: 2, conflicts: []))
        #expect(try source.list(service: nil).isEmpty)
        let moved = try destination.get(key("a", "1"))
        #expect(moved.secret == SecretBytes([0, 1, 2]))
        #expect(moved.info.label == "L" && moved.info.comment == "C" && moved.info.kind == .session)
        #expect(try destination.get(key("b", "2")).secret.isEmpty)
    }

    /// What Python keyring or gh stored beside the key comes along, both ways.
    @Test func attributesAndContentTypesMoveWithTheItems() throws {
        let directory = TemporaryDirectory()
        let memory = InMemoryStore(), file = try fileStore(directory)
        let changes = ItemChanges(attributes: ["application": "gh", "xdg:schema": "org.freedesktop.Secret.Generic"], contentType: "application/octet-stream")
        try memory.set(key("gh:github.com", "octocat"), secret: SecretBytes(utf8: "t"), changes: changes)
        _ = try StoreMigration.migrate(from: memory, to: file)
        let reopened = fastStore(file.path)
        try reopened.unlock(passphrase: testPassphrase)
        let info = try reopened.get(key("gh:github.com", "octocat")).info
        #expect(info.attributes == changes.attributes && info.contentType == "application/octet-stream")
        let back = InMemoryStore()
        _ = try StoreMigration.migrate(from: reopened, to: back)
        #expect(try back.get(key("gh:github.com", "octocat")).info.attributes == changes.attributes)
    }

    @Test func aConflictingItemIsKeptOnBothSides() throws {
        let directory = TemporaryDirectory()
        let source = InMemoryStore(), destination = try fileStore(directory)
        try source.set(key("s", "same"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        try source.set(key("s", "differs"), secret: SecretBytes(utf8: "from source"), changes: ItemChanges())
        try destination.set(key("s", "same"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        try destination.set(key("s", "differs"), secret: SecretBytes(utf8: "already here"), changes: ItemChanges())
        let report = try StoreMigration.migrate(from: source, to: destination)
        #expect(report.alreadyPresent == 1 && report.copied == 0 && report.removed == 1)
        #expect(report.conflicts == [key("s", "differs")])
        #expect(try source.get(key("s", "differs")).secret == SecretBytes(utf8: "from source"))
        #expect(try destination.get(key("s", "differs")).secret == SecretBytes(utf8: "already here"))
        #expect(throws: VaultError.notFound(key("s", "same"))) { try source.get(key("s", "same")) }
    }

    @Test func aFailureMidwayLosesNothingAndARerunFinishes() throws {
        let directory = TemporaryDirectory()
        let source = InMemoryStore(), destination = try fileStore(directory)
        for index in 0..<10 {
            try source.set(key("m", "item-\(index)"), secret: SecretBytes(utf8: "secret-\(index)"), changes: ItemChanges())
        }
        // The destination becomes unusable after a few copies.
        var steps = 0
        #expect(throws: VaultError.self) {
            try StoreMigration.migrate(from: source, to: destination) { _ in
                steps += 1
                if steps == 4 { try? destination.lock() }
            }
        }
        #expect(try source.list(service: nil).count == 10, "nothing may be removed before every copy is verified")
        try destination.unlock(passphrase: testPassphrase)
        let report = try StoreMigration.migrate(from: source, to: destination)
        #expect(report.alreadyPresent == 4 && report.copied == 6 && report.removed == 10)
        for index in 0..<10 {
            #expect(try destination.get(key("m", "item-\(index)")).secret == SecretBytes(utf8: "secret-\(index)"))
        }
    }
}
