import Testing
import VaultCore
import VaultStores

/// The Secret Service's attributes beside vault's key, as every store keeps them.
@Suite struct ItemAttributesTests {
    @Test(arguments: StoreSemanticsTests.Backend.allCases)
    func attributesAndContentTypeAreKeptReplacedAndSearched(_ backend: StoreSemanticsTests.Backend) throws {
        let fixture = try StoreSemanticsTests.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let gh = try ItemKey(service: "gh:github.com", account: "octocat")
        try store.set(gh, secret: SecretBytes(Array("t".utf8)), changes: ItemChanges(attributes: ["application": "gh"], contentType: "application/octet-stream"))
        var info = try store.get(gh).info
        #expect(info.attributes == ["application": "gh"] && info.contentType == "application/octet-stream")
        #expect(info.secretServiceAttributes == ["application": "gh", "service": "gh:github.com", "username": "octocat"])
        // A write that does not name them keeps them; one that does replaces all of them.
        try store.set(gh, secret: SecretBytes(Array("u".utf8)), changes: ItemChanges(label: "new"))
        #expect(try store.get(gh).info.attributes == ["application": "gh"])
        try store.set(gh, secret: SecretBytes(Array("u".utf8)), changes: ItemChanges(attributes: ["other": "1"]))
        info = try store.get(gh).info
        #expect(info.attributes == ["other": "1"] && info.contentType == "application/octet-stream")

        let docker = try ItemKey(service: ItemKey.attributeOnlyService, account: "0123456789abcdef0123456789abcdef")
        try store.set(docker, secret: SecretBytes(Array("p".utf8)), changes: ItemChanges(attributes: ["server": "https://r.example", "username": "x"].filter { $0.key != "username" }))
        let plain = try ItemKey(service: "plain", account: "me")
        try store.set(plain, secret: SecretBytes(Array("s".utf8)), changes: ItemChanges())
        #expect(try store.get(plain).info.attributes.isEmpty && store.get(plain).info.contentType == "text/plain")

        #expect(try store.items(matching: [:]).map(\.key) == [plain, gh, docker].sorted())
        #expect(try store.items(matching: ["service": "gh:github.com"]).map(\.key) == [gh])
        #expect(try store.items(matching: ["server": "https://r.example"]).map(\.key) == [docker])
        // A made-up key is not one of the item's attributes.
        #expect(try store.items(matching: ["service": ItemKey.attributeOnlyService]).isEmpty)
        #expect(try store.items(matching: ["username": "octocat", "other": "1"]).map(\.key) == [gh])
        #expect(try store.items(matching: ["username": "octocat", "other": "2"]).isEmpty)

        // The file store keeps them on disk: another instance reads the same.
        if let file = store as? EncryptedFileStore {
            let reopened = fastStore(file.path)
            try reopened.unlock(passphrase: testPassphrase)
            for key in [gh, docker, plain] {
                #expect(try reopened.get(key).info == store.get(key).info, "\(key)")
            }
            #expect(try reopened.items(matching: ["server": "https://r.example"]).map(\.key) == [docker])
        }
    }

    /// docker-credential-secretservice writes a lone `username`: an item with a made-up key keeps
    /// it as it is (on disk too), is found by it, and shows it; a keyed item cannot hold one.
    @Test(arguments: StoreSemanticsTests.Backend.allCases)
    func itemsWithMadeUpKeysKeepALoneUsernameOrService(_ backend: StoreSemanticsTests.Backend) throws {
        let fixture = try StoreSemanticsTests.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let docker = try ItemKey(service: ItemKey.attributeOnlyService, account: "00112233445566778899aabbccddeeff")
        let attributes = ["username": "robot", "server": "https://registry.example", "docker_cli": "1"]
        try store.set(docker, secret: SecretBytes(utf8: "pw"), changes: ItemChanges(attributes: attributes))
        let stored = try store.get(docker).info
        #expect(stored.attributes == attributes && stored.secretServiceAttributes == attributes)
        #expect(try store.items(matching: ["username": "robot"]).map(\.key) == [docker])
        let lone = try ItemKey(service: ItemKey.attributeOnlyService, account: "ffeeddccbbaa99887766554433221100")
        try store.set(lone, secret: SecretBytes(utf8: "s"), changes: ItemChanges(attributes: ["service": "only-a-service"]))
        // A search by service finds vault's items of that service and made-up ones that have it.
        let named = try ItemKey(service: "only-a-service", account: "me")
        try store.set(named, secret: SecretBytes(utf8: "n"), changes: ItemChanges())
        #expect(try store.items(matching: ["service": "only-a-service"]).map(\.key) == [named, lone])
        if case .file = backend, let file = store as? EncryptedFileStore {
            let reopened = fastStore(file.path)
            try reopened.unlock(passphrase: testPassphrase)
            #expect(try reopened.get(docker).info.attributes == attributes)
        }
        // vault's own items: service and username are the key, never other attributes.
        let keyed = try ItemKey(service: "svc", account: "acct")
        #expect(throws: VaultError.self) { try store.set(keyed, secret: SecretBytes(utf8: "x"), changes: ItemChanges(attributes: ["username": "other"])) }
        #expect(throws: VaultError.self) { try store.set(keyed, secret: SecretBytes(utf8: "x"), changes: ItemChanges(attributes: ["service": "other"])) }
        #expect(throws: VaultError.notFound(keyed)) { try store.get(keyed) }
    }

    @Test(arguments: StoreSemanticsTests.Backend.allCases)
    func badAttributesAreRefusedAndNothingChanges(_ backend: StoreSemanticsTests.Backend) throws {
        let fixture = try StoreSemanticsTests.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let key = try ItemKey(service: "s", account: "a")
        try store.set(key, secret: SecretBytes(Array("keep".utf8)), changes: ItemChanges(attributes: ["a": "1"]))
        let bad: [[String: String]] = [
            ["service": "x"], ["username": "x"], ["": "x"], ["a\n": "x"], ["a": "x\u{7F}"],
            [String(repeating: "n", count: ItemLimits.maxAttributeNameBytes + 1): "x"],
            ["a": String(repeating: "v", count: ItemLimits.maxAttributeValueBytes + 1)],
            Dictionary(uniqueKeysWithValues: (0...ItemLimits.maxAttributes).map { ("a\($0)", "v") }),
        ]
        for attributes in bad {
            #expect(throws: VaultError.self) { try store.set(key, secret: SecretBytes(Array("lost".utf8)), changes: ItemChanges(attributes: attributes)) }
        }
        for contentType in ["", "text/plain\n", "tëxt", String(repeating: "t", count: ItemLimits.maxContentTypeBytes + 1)] {
            #expect(throws: VaultError.self) { try store.set(key, secret: SecretBytes(Array("lost".utf8)), changes: ItemChanges(contentType: contentType)) }
        }
        let item = try store.get(key)
        #expect(item.secret == SecretBytes(Array("keep".utf8)) && item.info.attributes == ["a": "1"])
        // The limits themselves are allowed.
        let most = Dictionary(uniqueKeysWithValues: (0..<ItemLimits.maxAttributes).map { ("a\($0)", String(repeating: "v", count: ItemLimits.maxAttributeValueBytes)) })
        #expect(throws: Never.self) { try store.set(key, secret: SecretBytes([]), changes: ItemChanges(attributes: most)) }
    }
}
