import Foundation
import Testing
import VaultCore

/// vault beside the other tools that write the same Secret Service (issue 12): Python keyring's
/// own items under vault's names (duplicates), and items vault cannot address. Real gnome-keyring,
/// real Python keyring, secret-tool and secretstorage on a private bus.
@Suite struct SecretServiceNeighboursTests {
    func json(_ result: VaultHarness.Result) -> Any? { try? JSONSerialization.jsonObject(with: Data(result.stdout)) }

    /// Every item with service `service` and username `account`, whatever else it carries: label
    /// and secret, straight from the Secret Service (secretstorage), newest last.
    func itemsInKeyring(_ keyring: PrivateKeyring, _ service: String, _ account: String) throws -> [(label: String, secret: String)] {
        let result = try keyring.python("""
            import secretstorage, json, sys
            bus = secretstorage.dbus_init()
            found = list(secretstorage.search_items(bus, {"service": sys.argv[1], "username": sys.argv[2]}))
            print(json.dumps([[i.get_label(), i.get_secret().decode()] for i in found]))
            """, arguments: [service, account])
        let rows = (try? JSONSerialization.jsonObject(with: Data(result.stdout))) as? [[String]] ?? []
        return rows.map { ($0[0], $0[1]) }
    }

    @Test func duplicatesFromPythonKeyringAreReadNewestWrittenAllAndMovedAsOne() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        #expect(try vault.ctl("set", "S", "A", "--label", "vault's label", input: "from vault").status == 0)
        // keyring adds an `application` attribute, so it writes a second item rather than replacing.
        #expect(try keyring.pythonKeyring("keyring.set_password('S', 'A', 'from keyring')").status == 0)
        #expect(try itemsInKeyring(keyring, "S", "A").count == 2)

        // get: the newest, every time.
        for _ in 0..<8 { #expect(try vault.ctl("get", "S", "A").stdout == Array("from keyring".utf8)) }
        // list: one row, which says there are two.
        let listed = json(try vault.ctl("list", "--json")) as? [[String: Any]] ?? []
        #expect(listed.count == 1)
        #expect(listed.first?["duplicates"] as? Int == 1)
        #expect(try vault.ctl("list").text.split(separator: "\n").count == 1)
        let state = json(try vault.ctl("status", "--json")) as? [String: Any]
        #expect(state?["items"] as? Int == 2 && state?["duplicates"] as? Int == 1)
        // doctor: reported.
        let doctor = json(try vault.ctl("doctor", "--json")) as? [String: Any]
        let checks = doctor?["checks"] as? [[String: Any]] ?? []
        let items = checks.first { $0["name"] as? String == "items" }
        #expect(items?["ok"] as? Bool == false)
        #expect((items?["detail"] as? String)?.contains("1 duplicate item(s)") == true)

        // set: every item, so every tool reads the new value whichever item it finds.
        #expect(try vault.ctl("set", "S", "A", input: "from vault again").status == 0)
        #expect(try itemsInKeyring(keyring, "S", "A").map(\.secret) == ["from vault again", "from vault again"])
        for _ in 0..<8 { #expect(try keyring.pythonKeyring("print(keyring.get_password('S', 'A'), end='')").text == "from vault again") }

        // migrate: the newest item, with its own label (never one item's label with another's
        // secret), reported as collapsed; every original removed.
        #expect(try keyring.pythonKeyring("keyring.set_password('S', 'A', 'newest, from keyring')").status == 0)
        let keyringLabel = try #require(try itemsInKeyring(keyring, "S", "A").first { $0.secret == "newest, from keyring" }?.label)
        #expect(keyringLabel != "vault's label")
        let migration = try vault.ctl(["migrate", "--to", "file", "--json"], input: Array("file passphrase\n".utf8))
        #expect(migration.status == 0, "\(migration.stderr)")
        let report = json(migration) as? [String: Any]
        #expect(report?["copied"] as? Int == 1 && report?["removed"] as? Int == 2)
        #expect((report?["collapsed"] as? [[String: String]]) == [["service": "S", "account": "A"]])
        #expect(try itemsInKeyring(keyring, "S", "A").isEmpty)
        let moved = json(try vault.ctl("get", "S", "A", "--json")) as? [String: Any]
        #expect(moved?["secret"] as? String == "newest, from keyring")
        #expect(moved?["label"] as? String == keyringLabel)
    }

    @Test func deleteRemovesEveryDuplicate() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        #expect(try vault.ctl("set", "S", "A", input: "one").status == 0)
        #expect(try keyring.pythonKeyring("keyring.set_password('S', 'A', 'two')").status == 0)
        #expect(try vault.ctl("delete", "S", "A").status == 0)
        #expect(try itemsInKeyring(keyring, "S", "A").isEmpty)
        #expect(try keyring.pythonKeyring("print(keyring.get_password('S', 'A'), end='')").text == "None")
        #expect(try vault.ctl("get", "S", "A").status == 3)
    }

    @Test func itemsVaultCannotAddressAreListedCountedAndLeftInPlaceLoudly() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        #expect(try vault.ctl("set", "fine", "one", input: "s1").status == 0)
        #expect(try vault.ctl("set", "fine", "two", input: "s2").status == 0)
        let long = String(repeating: "x", count: 600)
        // An empty username (keyring allows it), a newline in a name, a name over 512 bytes,
        // no username at all; and one that is not vault's at all (no service attribute).
        for attributes in [["service", "empty-user", "username", ""], ["service", "multi\nline", "username", "a"],
                           ["service", "long", "username", long], ["service", "no-user", "other", "x"], ["server", "elsewhere", "user", "b"]] {
            let stored = try keyring.secretTool(["store", "--label=made elsewhere"] + attributes, input: "theirs")
            #expect(stored.status == 0, "\(stored.stderr)")
        }

        let listing = json(try vault.ctl("list", "--json")) as? [[String: Any]] ?? []
        #expect(listing.count == 6)
        let marked = listing.filter { $0["kind"] as? String == "unaddressable" }
        #expect(Set(marked.compactMap { $0["service"] as? String }) == ["empty-user", "multi\nline", "long", "no-user"])
        #expect(marked.allSatisfy { ($0["reason"] as? String)?.isEmpty == false })
        #expect(marked.first { $0["service"] as? String == "no-user" }?["account"] is NSNull)
        #expect((marked.first { $0["service"] as? String == "long" }?["reason"] as? String)?.contains("600 bytes") == true)
        #expect(!listing.contains { $0["service"] as? String == "elsewhere" })
        // The table and the tab-separated lines show them too, on one line each.
        let table = try vault.ctl("list").text.split(separator: "\n")
        #expect(table.count == 6)
        #expect(table.filter { $0.contains("\tunaddressable\t") }.count == 4)
        let state = json(try vault.ctl("status", "--json")) as? [String: Any]
        #expect(state?["items"] as? Int == 6 && state?["unaddressable"] as? Int == 4)
        let doctor = json(try vault.ctl("doctor", "--json")) as? [String: Any]
        let items = (doctor?["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "items" }
        #expect((items?["detail"] as? String)?.contains("4 item(s) with a 'service' attribute but no usable account") == true)

        // migrate: the two it can address move; the four stay where they are, named, and the
        // exit status says not everything moved.
        let migration = try vault.ctl(["migrate", "--to", "file"], input: Array("file passphrase\n".utf8))
        #expect(migration.status == 6)
        #expect(migration.stderr.components(separatedBy: "left in the secret-service store: service").count - 1 == 4)
        #expect(migration.stderr.contains("4 that vault cannot address"))
        #expect(try vault.ctl("get", "fine", "one").stdout == Array("s1".utf8))
        for (service, account) in [("empty-user", ""), ("long", long)] {
            #expect(try keyring.secretTool(["lookup", "service", service, "username", account]).text == "theirs")
        }
        #expect(try keyring.secretTool(["lookup", "service", "no-user", "other", "x"]).text == "theirs")
    }
}
