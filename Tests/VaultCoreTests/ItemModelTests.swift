import Testing
import VaultCore

@Suite struct ItemModelTests {
    @Test func keysAcceptUnicodeAndRefuseEmptyLongOrControlCharacters() throws {
        let key = try ItemKey(service: "сервис ☃", account: "usér@example.com")
        #expect(key.service == "сервис ☃")
        #expect(throws: VaultError.self) { try ItemKey(service: "", account: "a") }
        #expect(throws: VaultError.self) { try ItemKey(service: "s", account: "") }
        #expect(throws: VaultError.self) { try ItemKey(service: "s\n", account: "a") }
        #expect(throws: VaultError.self) { try ItemKey(service: "s", account: "a\u{0}b") }
        #expect(throws: VaultError.self) { try ItemKey(service: String(repeating: "x", count: ItemLimits.maxNameBytes + 1), account: "a") }
        #expect(throws: Never.self) { try ItemKey(service: String(repeating: "x", count: ItemLimits.maxNameBytes), account: "a") }
    }

    @Test func errorsCarryStableCodesAndNoSecrets() throws {
        let key = try ItemKey(service: "github", account: "me")
        #expect(VaultError.notFound(key).code.rawValue == "not_found")
        #expect(VaultError.duplicate(key).code.rawValue == "duplicate")
        #expect(VaultError.locked("x").code.rawValue == "locked")
        #expect(VaultError.storage(operation: "write", path: "/v", errno: .noSpace).description.contains("no space left"))
        #expect(VaultError.wrongPassphrase.description.contains("not been changed"))
    }

    @Test func storeKindsReadAsTheNamesVaultBackendTakes() {
        // What `vaultctl migrate` tells people to set: "VAULT_BACKEND=secret-service".
        #expect("\(StoreKind.secretService)" == "secret-service" && "\(StoreKind.file)" == "file")
        #expect(StoreKind.persistent.map(\.rawValue) == ["file", "secret-service"])
    }
}
