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

    @Test func pythonSecretstorageOverADHSessionAndKeyringShareItemsWithVaultctl() throws {
        let provider = try Provider()
        let vault = provider.vault
        #expect(try vault.ctl("set", "from-vaultctl", "erin", input: "ctl-secret").status == 0)
        let result = try provider.bus.python("""
            import secretstorage
            from secretstorage.util import open_session
            connection = secretstorage.dbus_init()
            session = open_session(connection)
            assert session.encrypted, "secretstorage should have negotiated the DH algorithm"
            collection = secretstorage.get_default_collection(connection, session)
            assert not collection.is_locked()
            item = collection.create_item("Made by secretstorage", {"service": "pysvc", "username": "carol", "application": "py"}, b"dh-secret\\x00\\xff", replace=True)
            assert item.get_secret() == b"dh-secret\\x00\\xff", item.get_secret()
            assert item.get_attributes() == {"service": "pysvc", "username": "carol", "application": "py"}, item.get_attributes()
            item.set_label("Renamed")
            found = list(collection.search_items({"service": "from-vaultctl"}))
            assert [i.get_secret() for i in found] == [b"ctl-secret"], found
            import keyring
            from keyring.backends import SecretService
            backend = SecretService.Keyring()
            backend.set_password("kr", "dave", "from-keyring")
            print(backend.get_password("from-vaultctl", "erin"))
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == "ctl-secret\n", "\(result.text)")
        #expect(try vault.ctl("get", "pysvc", "carol").stdout == Array("dh-secret".utf8) + [0, 0xff])
        #expect(try vault.ctl("get", "kr", "dave").stdout == Array("from-keyring".utf8))
        let listed = try vault.ctl("list", "pysvc", "--json").text
        #expect(listed.contains(#""label":"Renamed""#), "\(listed)")
        #expect(try vault.ctl("delete", "kr", "dave").status == 0)
        let gone = try provider.bus.pythonKeyring("print(keyring.get_password('kr', 'dave'), end='')")
        #expect(gone.text == "None", "\(gone.stderr)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HelperSharingTests.secretservice), "needs golang-docker-credential-helpers"))
    func dockerCredentialSecretserviceStoresGetsListsAndErases() throws {
        let provider = try Provider()
        let vault = provider.vault
        let helper = HelperSharingTests.secretservice
        let hub = "https://index.docker.io/v1/"
        #expect(try vault.run([helper, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"alice","Secret":"docker-secret"}"#.utf8)).status == 0)
        let got = try vault.run([helper, "get"], input: Array(hub.utf8))
        #expect(got.text.contains(#""Username":"alice""#) && got.text.contains(#""Secret":"docker-secret""#), "\(got.text) \(got.stderr)")
        let list = try vault.run([helper, "list"])
        #expect(list.text.contains(#""\#(hub)":"alice""#), "\(list.text) \(list.stderr)")
        // vaultctl sees it, under the key vault made up for it, and survives a restart of vaultd.
        #expect(try vault.ctl("list", ItemKey.attributeOnlyService).text.contains(hub))
        vault.stopDaemons()
        try provider.start()
        #expect(try vault.run([helper, "get"], input: Array(hub.utf8)).text.contains(#""Secret":"docker-secret""#))
        #expect(try vault.run([helper, "erase"], input: Array(hub.utf8)).status == 0)
        #expect(try vault.run([helper, "get"], input: Array(hub.utf8)).status != 0)
        #expect(!(try vault.ctl("list").text.contains(hub)))
    }

    @Test func onRefusesToStartWhenAnotherProviderOwnsTheNameAndAutoSaysWhy() throws {
        let provider = try Provider(start: false)
        let vault = provider.vault
        try provider.bus.startKeyring()
        let refused = try vault.run([VaultHarness.vaultd, "--secret-service-provider", "on"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("already owns org.freedesktop.secrets") && refused.stderr.contains("--secret-service-provider on"), "\(refused.stderr)")
        // auto: vaultd serves its socket, and status says why it does not serve the bus.
        let state = try provider.status()
        #expect(state["secret_service_provider"] as? Bool == false)
        #expect((state["secret_service_provider_reason"] as? String)?.contains("already owns") == true, "\(state)")
        #expect(try vault.ctl("status").text.contains("secret service: not served by vaultd"))
    }

    @Test func aSecondVaultdInOnModeIsRefusedWhileTheFirstServes() throws {
        let provider = try Provider()
        let state = try provider.status()
        #expect(state["secret_service_provider"] as? Bool == true, "\(state)")
        #expect(try provider.vault.ctl("status").text.contains("secret service: vaultd serves it"))
        let other = VaultHarness()
        other.environment["DBUS_SESSION_BUS_ADDRESS"] = provider.bus.busAddress
        let refused = try other.run([VaultHarness.vaultd, "--secret-service-provider", "on"])
        #expect(refused.status == 1 && refused.stderr.contains("already owns org.freedesktop.secrets"), "\(refused.stderr)")
        // off: never, even with the name free.
        let quiet = VaultHarness()
        quiet.environment["DBUS_SESSION_BUS_ADDRESS"] = provider.bus.busAddress
        quiet.environment["VAULT_SECRET_SERVICE_PROVIDER"] = "off"
        provider.vault.stopDaemons()
        let offState = try JSONSerialization.jsonObject(with: Data(try quiet.ctl("status", "--json").stdout)) as? [String: Any] ?? [:]
        #expect(offState["secret_service_provider"] as? Bool == false && (offState["secret_service_provider_reason"] as? String)?.hasPrefix("off") == true, "\(offState)")
        #expect(try !provider.nameHasOwner())
        let bad = try quiet.run([VaultHarness.vaultd, "--secret-service-provider", "maybe"])
        #expect(bad.status == 2 && bad.stderr.contains("auto, on or off"), "\(bad.stderr)")
    }
}

