import Testing
import VaultCore
import VaultStores

/// Items only attributes name (created over the Secret Service without a usable `service` and
/// `username`): all their attributes are `ItemInfo.attributes`, a lone `username` included, as
/// docker-credential-secretservice writes one.
@Suite struct AttributeOnlyItemTests {
    @Test func aMadeUpKeyKeepsALoneUsernameAttributeAndAnyOtherKeyRefusesIt() throws {
        let store = InMemoryStore()
        let docker = try ItemKey(service: ItemKey.attributeOnlyService, account: "0123456789abcdef0123456789abcdef")
        let attributes = ["server": "https://r.example", "username": "x", "docker_cli": "1"]
        try store.set(docker, secret: SecretBytes(Array("p".utf8)), changes: ItemChanges(attributes: attributes))
        #expect(try store.get(docker).info.secretServiceAttributes == attributes)
        #expect(try store.items(matching: ["username": "x"]).map(\.key) == [docker])

        let plain = try ItemKey(service: "plain", account: "me")
        #expect(throws: VaultError.self) {
            try store.set(plain, secret: SecretBytes(Array("s".utf8)), changes: ItemChanges(attributes: ["username": "x"]))
        }
        #expect(ItemAttributes.problem(with: ["service": "s"], forKey: docker) == nil)
        #expect(ItemAttributes.problem(with: ["service": "s"], forKey: plain) != nil)
        #expect(ItemAttributes.problem(with: ["service": "s"]) != nil)
    }
}
