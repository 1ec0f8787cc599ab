import Testing
import VaultCore
import VaultStores

/// Keychain semantics every backend must give; run against each one.
@Suite struct StoreSemanticsTests {
    enum Backend: String, CaseIterable, Sendable { case memory, file }

    /// Keeps the temporary directory alive as long as the store.
    struct Fixture {
        let store: any VaultStore
        let directory: TemporaryDirectory
    }

    static func makeStore(_ backend: Backend) throws -> Fixture {
        let directory = TemporaryDirectory()
        switch backend {
        case .memory:
            return Fixture(store: InMemoryStore(), directory: directory)
        case .file:
            let store = fastStore(directory.file("data/vault.db"))
            try store.unlock(passphrase: testPassphrase)
            return Fixture(store: store, directory: directory)
        }
    }

    @Test(arguments: Backend.allCases)
    func addRefusesAnExistingKeyAndKeepsTheOldSecret(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        try store.add(key("github", "me"), secret: SecretBytes(utf8: "one"), changes: ItemChanges())
        #expect(throws: VaultError.duplicate(key("github", "me"))) {
            try store.add(key("github", "me"), secret: SecretBytes(utf8: "two"), changes: ItemChanges())
        }
        #expect(try store.get(key("github", "me")).secret == SecretBytes(utf8: "one"))
    }

    @Test(arguments: Backend.allCases)
    func setInsertsThenUpdatesKeepingCreationTimeAndUnchangedMetadata(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let first = try store.set(key("api", "bot"), secret: SecretBytes(utf8: "v1"), changes: ItemChanges(label: "Bot token", comment: "ci"))
        #expect(first.label == "Bot token" && first.kind == .secret)
        let second = try store.set(key("api", "bot"), secret: SecretBytes(utf8: "v2"), changes: ItemChanges(comment: "rotated"))
        #expect(second.created == first.created)
        #expect(second.modified >= first.modified)
        #expect(second.label == "Bot token")
        #expect(second.comment == "rotated")
        #expect(try store.get(key("api", "bot")).secret == SecretBytes(utf8: "v2"))
    }

    @Test(arguments: Backend.allCases)
    func newItemsGetAReadableDefaultLabel(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let info = try store.add(key("db", "admin"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        #expect(info.label == "db (admin)")
        #expect(info.comment == "")
    }

    @Test(arguments: Backend.allCases)
    func getAndDeleteOfMissingKeysAreNotFound(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        #expect(throws: VaultError.notFound(key("nope", "nobody"))) { try store.get(key("nope", "nobody")) }
        #expect(throws: VaultError.notFound(key("nope", "nobody"))) { try store.delete(key("nope", "nobody")) }
        try store.set(key("a", "b"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        try store.delete(key("a", "b"))
        #expect(throws: VaultError.notFound(key("a", "b"))) { try store.get(key("a", "b")) }
    }

    @Test(arguments: Backend.allCases)
    func listReturnsSortedMetadataFilteredByService(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        for (service, account) in [("b", "2"), ("a", "9"), ("b", "1"), ("c", "1")] {
            try store.set(key(service, account), secret: SecretBytes(utf8: "s-\(service)-\(account)"), changes: ItemChanges())
        }
        #expect(try store.list(service: nil).map { "\($0.key.service)/\($0.key.account)" } == ["a/9", "b/1", "b/2", "c/1"])
        #expect(try store.list(service: "b").map(\.key.account) == ["1", "2"])
        #expect(try store.list(service: "zzz").isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func secretsRoundTripByteForByte(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let binary = SecretBytes((0..<ItemLimits.maxSecretBytes).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        let cases: [(ItemKey, SecretBytes)] = [
            (key("bin", "64k"), binary),
            (key("bin", "nul"), SecretBytes([0, 0, 1, 0, 0xff, 0xfe, 0])),
            (key("ünïcødé ☃", "アカウント"), SecretBytes(utf8: "pässwörd ✓")),
            (key("empty", "secret"), .empty),
        ]
        for (itemKey, secret) in cases {
            try store.set(itemKey, secret: secret, changes: ItemChanges())
        }
        for (itemKey, secret) in cases {
            #expect(try store.get(itemKey).secret == secret, "\(itemKey)")
        }
    }

    @Test(arguments: Backend.allCases)
    func oversizedSecretsAndMetadataAreRefused(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        let tooBig = SecretBytes([UInt8](repeating: 1, count: ItemLimits.maxSecretBytes + 1))
        #expect(throws: VaultError.self) { try store.set(key("a", "b"), secret: tooBig, changes: ItemChanges()) }
        let longLabel = String(repeating: "l", count: ItemLimits.maxLabelBytes + 1)
        #expect(throws: VaultError.self) { try store.set(key("a", "b"), secret: .empty, changes: ItemChanges(label: longLabel)) }
        #expect(try store.list(service: nil).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func lockedStoresRefuseAccessUntilUnlocked(_ backend: Backend) throws {
        let fixture = try Self.makeStore(backend)
        defer { withExtendedLifetime(fixture) {} }
        let store = fixture.store
        try store.set(key("a", "b"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        try store.lock()
        #expect(store.status().isLocked)
        #expect { try store.get(key("a", "b")) } throws: { ($0 as? VaultError)?.code == .locked }
        #expect { try store.list(service: nil) } throws: { ($0 as? VaultError)?.code == .locked }
        try store.unlock(passphrase: testPassphrase)
        #expect(try store.get(key("a", "b")).secret == SecretBytes(utf8: "x"))
    }
}
