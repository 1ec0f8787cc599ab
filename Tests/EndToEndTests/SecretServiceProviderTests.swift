import Foundation
import Testing
import VaultCore

/// vaultd as the Secret Service provider (`--secret-service-provider`) on a private session bus
/// with no other provider: real clients (secret-tool, Python secretstorage and keyring,
/// docker-credential-secretservice) against the built vaultd and its file store.
@Suite struct SecretServiceProviderTests {
    /// A private bus (no keyring), vaultd on the file store serving the Secret Service.
    final class Provider: @unchecked Sendable {
        let vault = VaultHarness()
        let bus: PrivateKeyring

        init(start: Bool = true, arguments: [String] = []) throws {
            bus = try PrivateKeyring(vault, startKeyring: false)
            vault.environment["VAULT_BACKEND"] = "file"
            if start { try self.start(arguments) }
        }

        func start(_ arguments: [String] = []) throws {
            _ = try vault.startDaemon(arguments)
            try waitForOwner()
        }

        func nameHasOwner() throws -> Bool {
            try vault.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                           "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"]).text.contains("boolean true")
        }

        func waitForOwner() throws {
            for _ in 0..<500 {
                if try nameHasOwner() { return }
                usleep(20_000)
            }
            throw VaultError.unavailable("vaultd did not take org.freedesktop.secrets: \(vault.foregroundLog)")
        }

        func secretTool(_ arguments: [String], input: String = "") throws -> VaultHarness.Result {
            try bus.secretTool(arguments, input: input)
        }

        func status() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(try vault.ctl("status", "--json").stdout)) as? [String: Any] ?? [:]
        }
    }

    @Test func secretToolStoresLooksUpSearchesAndClearsVaultItems() throws {
        let provider = try Provider()
        let vault = provider.vault
        // secret-tool's item with service and username IS vault's item of that key.
        #expect(try provider.secretTool(["store", "--label=From secret-tool", "service", "github.com", "username", "octocat"], input: "from-secret-tool").status == 0)
        #expect(try vault.ctl("get", "github.com", "octocat").stdout == Array("from-secret-tool".utf8))
        #expect(try provider.secretTool(["lookup", "service", "github.com", "username", "octocat"]).text == "from-secret-tool")
        // And the reverse: vaultctl's items are found by secret-tool.
        #expect(try vault.ctl("set", "registry", "bob", input: "from-vaultctl").status == 0)
        #expect(try provider.secretTool(["lookup", "service", "registry", "username", "bob"]).text == "from-vaultctl")
        // Storing the same key again updates the one item (the file store keeps one per key).
        #expect(try provider.secretTool(["store", "--label=Second", "service", "registry", "username", "bob"], input: "updated").status == 0)
        #expect(try vault.ctl("get", "registry", "bob").stdout == Array("updated".utf8))
        #expect(try vault.ctl("list", "registry").text.split(separator: "\n").count == 1)

        // An item without service and username is kept under a key vault makes up.
        #expect(try provider.secretTool(["store", "--label=Host item", "host", "example.org"], input: "host-secret").status == 0)
        #expect(try provider.secretTool(["lookup", "host", "example.org"]).text == "host-secret")
        let listed = try vault.ctl("list", ItemKey.attributeOnlyService).text
        #expect(listed.contains("Host item"), "\(listed)")

        let search = try provider.secretTool(["search", "--all", "service", "github.com"])
        #expect(search.status == 0 && search.text.contains("label = From secret-tool") && search.text.contains("secret = from-secret-tool"), "\(search.text) \(search.stderr)")

        #expect(try provider.secretTool(["clear", "service", "github.com", "username", "octocat"]).status == 0)
        #expect(try vault.ctl("get", "github.com", "octocat").status == 3)
        #expect(try provider.secretTool(["lookup", "service", "github.com", "username", "octocat"]).status != 0)
    }
}
