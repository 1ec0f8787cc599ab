import Foundation
import Testing
import VaultTestSupport
import VaultCore

/// vaultd as the Secret Service provider (`--secret-service-provider`) on a private session bus
/// with no other provider: real clients (secret-tool, Python secretstorage and keyring,
/// docker-credential-secretservice) against the built vaultd and its file store.
@Suite struct SecretServiceProviderTests {
    /// A private bus (no keyring), vaultd on the file store serving the Secret Service.
    final class Provider: @unchecked Sendable {
        let vault: VaultHarness
        let bus: PrivateKeyring

        /// `activation`: the bus starts vaultd through the repository's activation file.
        /// `unprivileged`: the bus and vaultd run as an ordinary uid (`UnprivilegedUser`).
        init(start: Bool = true, arguments: [String] = [], activation: Bool = false, unprivileged: Bool = false) throws {
            vault = VaultHarness(unprivileged: unprivileged)
            let services = vault.root + "/services"
            if activation {
                try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
                let template = try String(contentsOfFile: SecretServiceTests.packageRoot + "/dbus/org.freedesktop.secrets.service", encoding: .utf8)
                try template.replacingOccurrences(of: "@BINDIR@", with: VaultHarness.binDirectory)
                    .write(toFile: services + "/org.freedesktop.secrets.service", atomically: true, encoding: .utf8)
            }
            // The bus (and so what it activates) runs with the file store's settings.
            vault.environment["VAULT_BACKEND"] = "file"
            bus = try PrivateKeyring(vault, startKeyring: false, serviceDirectory: activation ? services : nil)
            vault.environment["VAULT_BACKEND"] = "file"
            if start { try self.start(arguments) }
        }

        func start(_ arguments: [String] = []) throws {
            _ = try vault.startDaemon(arguments)
            try waitForOwner()
        }

        /// Serving with prompts dismissed after `promptTimeout` seconds, over a locked vault that
        /// holds svc/acct = `secret`.
        static func locked(promptTimeout: String, secret: String) throws -> Provider {
            let provider = try Provider(start: false)
            provider.vault.environment["VAULT_SECRET_SERVICE_PROMPT_TIMEOUT"] = promptTimeout
            try provider.start()
            #expect(try provider.vault.ctl("set", "svc", "acct", input: secret).status == 0)
            #expect(try provider.vault.ctl("lock").status == 0)
            return provider
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

    /// Switching from docker-credential-secretservice to vault's helper while vaultd is the
    /// Secret Service: what the old helper stored (in vault's file, through vaultd) is found, and
    /// a new secret stored by vault's helper replaces it with vault's own item.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HelperSharingTests.secretservice), "needs golang-docker-credential-helpers"))
    func vaultsDockerHelperFindsWhatDockerCredentialSecretserviceStoredThroughVaultd() throws {
        let provider = try Provider()
        let vault = provider.vault
        let ours = vault.product("docker-credential-vault")
        let hub = "https://index.docker.io/v1/"
        #expect(try vault.run([HelperSharingTests.secretservice, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"alice","Secret":"old-secret"}"#.utf8)).status == 0)
        let got = try vault.run([ours, "get"], input: Array(hub.utf8))
        #expect(got.text.contains(#""Username":"alice""#) && got.text.contains(#""Secret":"old-secret""#), "\(got.text) \(got.stderr)")
        #expect(try vault.run([ours, "list"]).text.contains(#""\#(hub)":"alice""#))
        #expect(try vault.run([ours, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"alice","Secret":"new-secret"}"#.utf8)).status == 0)
        #expect(try vault.run([ours, "get"], input: Array(hub.utf8)).text.contains(#""Secret":"new-secret""#))
        #expect(try vault.ctl("get", "docker:" + hub, "alice").stdout == Array("new-secret".utf8))
        #expect(!(try vault.ctl("list", ItemKey.attributeOnlyService).text.contains(hub)), "the old helper's copy is replaced")
        #expect(try vault.run([ours, "erase"], input: Array(hub.utf8)).status == 0)
        #expect(try vault.run([ours, "get"], input: Array(hub.utf8)).status != 0)
    }

    /// The other helper's item kept in vault's file is a vault item: its own rules guard it when
    /// vault's helper reads it, and deleting it through vault's helper takes its rules with it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: HelperSharingTests.secretservice), "needs golang-docker-credential-helpers"))
    func theRulesOfAnotherHelpersItemKeptInVaultGuardIt() throws {
        let provider = try Provider()
        let vault = provider.vault
        let ours = vault.product("docker-credential-vault")
        let hub = "https://registry.example/v2/"
        #expect(try vault.run([HelperSharingTests.secretservice, "store"], input: Array(#"{"ServerURL":"\#(hub)","Username":"bob","Secret":"guarded"}"#.utf8)).status == 0)
        let listed = try JSONSerialization.jsonObject(with: Data(try vault.ctl("list", ItemKey.attributeOnlyService, "--json").stdout)) as? [[String: Any]] ?? []
        let account = try #require(listed.first?["account"] as? String)
        #expect(try vault.ctl("allow", ItemKey.attributeOnlyService, account, "/usr/bin/true").status == 0)
        let refused = try vault.run([ours, "get"], input: Array(hub.utf8))
        #expect(refused.status != 0 && !refused.text.contains("guarded"), "\(refused.text) \(refused.stderr)")
        #expect(try vault.ctl("audit").text.contains(account))
        #expect(try vault.run([ours, "erase"], input: Array(hub.utf8)).status == 0)
        #expect(!(try vault.ctl("rules").text.contains(account)), "the rules go with the item")
    }

    /// The same for git: git-credential-libsecret's credential, kept in vault's file through
    /// vaultd, is what git-credential-vault fills; a new password approved through vault's helper
    /// replaces it.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: HelperSharingTests.libsecretSource), "needs the libsecret helper's source from Debian's git package"))
    func vaultsGitHelperFindsWhatGitCredentialLibsecretStoredThroughVaultd() throws {
        let provider = try Provider()
        let vault = provider.vault
        let libsecret = try HelperSharingTests().buildLibsecretHelper(vault)
        func git(_ helper: String, _ operation: String, _ lines: String) throws -> VaultHarness.Result {
            try vault.run(["/usr/bin/git", "-c", "credential.helper=", "-c", "credential.helper=" + helper, "credential", operation],
                          input: Array(lines.utf8), environment: ["GIT_TERMINAL_PROMPT": "0", "PATH": UnprivilegedUser.programs + ":" + VaultHarness.binDirectory + ":/usr/bin:/bin"])
        }
        #expect(try git(libsecret, "approve", "protocol=https\nhost=forge.example\nusername=carol\npassword=from-libsecret\n\n").status == 0)
        let filled = try git("vault", "fill", "protocol=https\nhost=forge.example\n\n")
        #expect(filled.text == "protocol=https\nhost=forge.example\nusername=carol\npassword=from-libsecret\n", "\(filled.text) \(filled.stderr)")
        #expect(try git("vault", "approve", "protocol=https\nhost=forge.example\nusername=carol\npassword=changed\n\n").status == 0)
        #expect(try git("vault", "fill", "protocol=https\nhost=forge.example\n\n").text.contains("password=changed"))
        #expect(!(try vault.ctl("list", ItemKey.attributeOnlyService).text.contains("forge.example")), "the old helper's copy is replaced")
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

    /// While vaultd serves the Secret Service, the one on the bus is vaultd itself: `migrate`
    /// in either direction is refused at once, naming why, and every item stays. (Taking items
    /// "from the Secret Service" used to ask vaultd's own provider, which could not answer while
    /// the migration held the store: a 5 s wait, then an error saying the Secret Service was slow.
    /// Had it answered, each item would have been deleted from the store it was found in.)
    @Test func migrateInEitherDirectionIsRefusedWhileVaultdIsTheSecretService() throws {
        let provider = try Provider()
        let vault = provider.vault
        #expect(try vault.ctl("set", "svc", "acct", input: "keep me").status == 0)
        for target in ["file", "secret-service"] {
            let started = Clock.monotonicSeconds()
            let refused = try vault.ctl(["migrate", "--to", target], input: Array("passphrase\n".utf8))
            #expect(refused.status == 2 && refused.stderr.contains("vaultd itself serves the Secret Service"), "\(target): \(refused.stderr)")
            #expect(Clock.monotonicSeconds() - started < 4, "\(target): refused only after \(Clock.monotonicSeconds() - started) s")
        }
        #expect(try vault.ctl("get", "svc", "acct").text == "keep me")
        #expect(try provider.secretTool(["lookup", "service", "svc", "username", "acct"]).text == "keep me")
    }

    /// Two vaultds on one vault file, the first serving the Secret Service from it: to the second,
    /// that provider is "the Secret Service store", and a migration either way would find each
    /// item already in its destination (the same file) and delete it from its source (the same
    /// file). The second asks the provider which vault file it serves (vault.Provider's
    /// VaultFile) and refuses; every item stays. A vaultd on another vault file may migrate, and
    /// a provider without that interface (GNOME Keyring) is taken for a store of its own.
    @Test func migrateIsRefusedWhenTheSecretServiceIsAnotherVaultdOnTheSameVaultFile() throws {
        let provider = try Provider()
        #expect(try provider.vault.ctl("set", "svc", "acct", input: "keep me").status == 0)
        #expect(try provider.vault.ctl("set", "svc", "other", input: "me too").status == 0)
        // The second vaultd: its own socket and home, the first one's vault file and passphrase.
        let second = VaultHarness()
        second.environment["DBUS_SESSION_BUS_ADDRESS"] = provider.bus.busAddress
        second.environment["VAULT_SECRET_SERVICE_PROVIDER"] = "off"
        second.environment["VAULT_FILE"] = provider.vault.vaultFile
        second.environment["VAULT_PASSPHRASE_FILE"] = provider.vault.root + "/passphrase"
        #expect(try second.ctl("get", "svc", "acct").text == "keep me")
        for target in ["file", "secret-service"] {
            let refused = try second.ctl(["migrate", "--to", target], input: Array("passphrase\n".utf8))
            #expect(refused.status == 2 && refused.stderr.contains("another vaultd, serving this same vault file"), "\(target): \(refused.stderr)")
            #expect(!refused.stderr.contains("keep me"))
        }
        for vault in [provider.vault, second] {
            #expect(try vault.ctl("get", "svc", "acct").text == "keep me")
            #expect(try vault.ctl("get", "svc", "other").text == "me too")
        }
        #expect(try provider.secretTool(["lookup", "service", "svc", "username", "acct"]).text == "keep me")
        // The same provider asked by a vaultd on a vault file of its own: a store of its own, so
        // its items move into that file, and out of the first one's (through the provider).
        let elsewhere = VaultHarness()
        elsewhere.environment["DBUS_SESSION_BUS_ADDRESS"] = provider.bus.busAddress
        elsewhere.environment["VAULT_SECRET_SERVICE_PROVIDER"] = "off"
        let moved = try elsewhere.ctl(["migrate", "--to", "file"], input: Array("passphrase\n".utf8))
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try elsewhere.ctl("get", "svc", "acct").text == "keep me")
        #expect(try provider.vault.ctl("get", "svc", "acct").status == 3)
    }

    /// A vaultd older than vault.Provider cannot say which vault file it serves: `migrate`
    /// refuses when the owner of the name is a program named vaultd that does not answer it,
    /// naming the pid, and goes ahead when it is another provider.
    @Test func migrateIsRefusedWhenTheSecretServiceIsAVaultdThatCannotSayWhichFileItServes() throws {
        let provider = try Provider(start: false)
        // Python under the name vaultd, owning org.freedesktop.secrets and answering every call
        // with UnknownMethod, as a provider without vault.Provider does.
        let fake = provider.vault.root + "/old/vaultd"
        try FileManager.default.createDirectory(atPath: provider.vault.root + "/old", withIntermediateDirectories: true)
        let python = URL(fileURLWithPath: SecretServiceTests.packageRoot + "/.venv/bin/python").resolvingSymlinksInPath().path
        try ExecutableFile.copy(python, to: fake)
        let script = """
            import sys
            from jeepney import MessageType, new_error
            from jeepney.bus_messages import message_bus
            from jeepney.io.blocking import open_dbus_connection
            connection = open_dbus_connection(bus="SESSION")
            reply = connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.secrets", 4))
            print("owner" if reply.body[0] == 1 else "refused", flush=True)
            while True:
                message = connection.receive()
                if message.header.message_type == MessageType.method_call:
                    connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s", ("no such method",)))
            """
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: fake)
        process.arguments = ["-u", "-c", script]
        var environment = provider.vault.environment
        environment["PYTHONPATH"] = SecretServiceTests.packageRoot + "/.venv/lib/python3.11/site-packages"
        process.environment = environment
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // SIGKILL: Process starts its children with signals blocked, SIGTERM included.
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        #expect(String(decoding: output.fileHandleForReading.readData(ofLength: 6), as: UTF8.self) == "owner\n")
        let second = VaultHarness()
        second.environment["DBUS_SESSION_BUS_ADDRESS"] = provider.bus.busAddress
        second.environment["VAULT_SECRET_SERVICE_PROVIDER"] = "off"
        #expect(try second.ctl("set", "svc", "acct", input: "keep me").status == 0)
        for target in ["file", "secret-service"] {
            let refused = try second.ctl(["migrate", "--to", target], input: Array("passphrase\n".utf8))
            #expect(refused.status == 2 && refused.stderr.contains("is a vaultd (pid \(process.processIdentifier), \(fake))") && refused.stderr.contains("older version"),
                    "\(target): \(refused.stderr)")
        }
        #expect(try second.ctl("get", "svc", "acct").text == "keep me")
    }

    /// Lowercase hex of `text`'s UTF-8, as item paths spell keys.
    static func itemPath(_ service: String, _ account: String) -> String {
        func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }
        return "/org/freedesktop/secrets/collection/login/i\(hex(service))_\(hex(account))"
    }

    /// `call(path, interface, method, signature, *arguments)`: the reply's body, or the D-Bus
    /// error's name (secretstorage's wrappers turn some errors into exceptions of their own).
    static let pythonPrelude = """
        import sys, secretstorage
        from secretstorage.util import DBusAddressWrapper, exec_prompt, open_session
        from jeepney import DBusAddress, new_method_call, MessageType, HeaderFields
        P = 'org.freedesktop.Secret.'
        SERVICE = '/org/freedesktop/secrets'
        COLLECTION = '/org/freedesktop/secrets/collection/login'
        connection = secretstorage.dbus_init()
        def call(path, interface, method, signature='', *arguments, on=None):
            address = DBusAddress(path, bus_name='org.freedesktop.secrets', interface=P + interface)
            reply = (on or connection).send_and_get_reply(new_method_call(address, method, signature, arguments))
            if reply.header.message_type == MessageType.error:
                return reply.header.fields[HeaderFields.error_name]
            return reply.body
        """

    /// Starts `code` (after `pythonPrelude`) in the venv's Python; its stdout comes line by line.
    final class PythonClient: @unchecked Sendable {
        let process = Process()
        private let output = Pipe()
        /// Its stdin: a line written here lets a script that waits for one go on.
        let input = Pipe()
        private var buffer = Data()

        init(_ provider: Provider, _ code: String, arguments: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: SecretServiceTests.packageRoot + "/.venv/bin/python")
            process.arguments = ["-u", "-c", SecretServiceProviderTests.pythonPrelude + "\n" + code] + arguments
            process.environment = provider.vault.environment
            process.standardOutput = output
            process.standardInput = input
            FileManager.default.createFile(atPath: provider.vault.root + "/python.err", contents: nil)
            process.standardError = FileHandle(forWritingAtPath: provider.vault.root + "/python.err")
            try process.run()
        }

        /// The next line it prints; nil once it exited without one.
        func line() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    return line
                }
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { return nil }
                buffer.append(more)
            }
        }
    }

    /// A D-Bus client watching the collection hears of what vaultctl creates, changes and
    /// deletes through the socket, and of nothing vaultctl keeps that is not a plain secret.
    @Test func changesThroughTheSocketAreSignalledToDBusClients() throws {
        let provider = try Provider()
        let vault = provider.vault
        let watcher = try PythonClient(provider, """
            from jeepney import MatchRule
            from jeepney.bus_messages import message_bus
            rule = MatchRule(type='signal', interface=P + 'Collection', path=COLLECTION)
            connection.send_and_get_reply(message_bus.AddMatch(rule))
            with connection.filter(rule) as signals:
                print('ready')
                for _ in range(3):
                    signal = connection.recv_until_filtered(signals, timeout=20)
                    print(signal.header.fields[HeaderFields.member], signal.body[0])
            """)
        #expect(watcher.line() == "ready")
        let item = Self.itemPath("watched", "me")
        #expect(try vault.ctl("set", "watched", "me", input: "one").status == 0)
        #expect(watcher.line() == "ItemCreated \(item)")
        // An AWS credential is no Secret Service item: no signal (the next one is the change).
        let aws = #"{"Version":1,"AccessKeyId":"AKIAEXAMPLE","SecretAccessKey":"s"}"#
        #expect(try vault.ctl(["aws", "set", "watched-profile"], input: Array(aws.utf8)).status == 0)
        #expect(try vault.ctl("set", "watched", "me", input: "two").status == 0)
        #expect(watcher.line() == "ItemChanged \(item)")
        #expect(try vault.ctl("delete", "watched", "me").status == 0)
        #expect(watcher.line() == "ItemDeleted \(item)")
        watcher.process.waitUntilExit()
        #expect(watcher.process.terminationStatus == 0)
    }

    @Test func aLockedVaultShowsLockedItemsAndUnlocksPromptsCompleteOrAreDismissedInTime() throws {
        let provider = try Provider.locked(promptTimeout: "3", secret: "locked-away")
        let vault = provider.vault
        let item = Self.itemPath("svc", "acct")

        // Locked: the collection and items say so, secrets are refused, Unlock gives a prompt
        // that completes once 'vaultctl unlock' unlocks the vault.
        let client = try PythonClient(provider, """
            session = open_session(connection)
            collection = DBusAddressWrapper(COLLECTION, P + 'Collection', connection)
            item = DBusAddressWrapper(sys.argv[1], P + 'Item', connection)
            print('locked', collection.get_property('Locked'), item.get_property('Locked'))
            print('get', call(sys.argv[1], 'Item', 'GetSecret', 'o', session.object_path))
            print('search', call(SERVICE, 'Service', 'SearchItems', 'a{ss}', {'service': 'svc'}))
            unlocked, prompt = call(SERVICE, 'Service', 'Unlock', 'ao', [COLLECTION])
            print('prompt', unlocked, prompt != '/')
            dismissed, result = exec_prompt(connection, prompt, timeout=20)
            print('completed', dismissed, result[1])
            print('secret', secretstorage.Item(connection, sys.argv[1], session).get_secret())
            """, arguments: [item])
        #expect(client.line() == "locked True True")
        #expect(client.line() == "get org.freedesktop.Secret.Error.IsLocked")
        #expect(client.line() == "search ([], [])")
        #expect(client.line() == "prompt [] True")
        #expect(try vault.ctl(["unlock"], input: Array((vault.passphrase + "\n").utf8)).status == 0)
        #expect(client.line() == "completed False ['/org/freedesktop/secrets/collection/login']")
        #expect(client.line() == "secret b'locked-away'")
        client.process.waitUntilExit()

        // Dismissed by the client, and by vaultd when nobody unlocks within the time-out.
        #expect(try vault.ctl("lock").status == 0)
        let started = Date()
        let dismissing = try PythonClient(provider, """
            from jeepney import MatchRule, MessageType
            from jeepney import MatchRule
            _, prompt = call(SERVICE, 'Service', 'Unlock', 'ao', [COLLECTION])
            rule = MatchRule(path=prompt, interface=P + 'Prompt', member='Completed', type=MessageType.signal)
            with connection.filter(rule) as signals:
                call(prompt, 'Prompt', 'Dismiss')
                print('dismissed', connection.recv_until_filtered(signals, timeout=20).body)
            _, prompt = call(SERVICE, 'Service', 'Unlock', 'ao', [COLLECTION])
            print('timed out', exec_prompt(connection, prompt, timeout=20))
            _, prompt = call(SERVICE, 'Service', 'Unlock', 'ao', [COLLECTION])
            print('not theirs', call(prompt, 'Prompt', 'Dismiss', on=secretstorage.dbus_init()))
            """)
        #expect(dismissing.line() == "dismissed (True, ('ao', []))")
        #expect(dismissing.line() == "timed out (True, ('ao', []))")
        #expect(dismissing.line() == "not theirs org.freedesktop.Secret.Error.NoSuchObject")
        dismissing.process.waitUntilExit()
        #expect(Date().timeIntervalSince(started) < 15)
        #expect(try provider.status()["locked"] as? Bool == true)
    }

    @Test func hostileArgumentsAreRefusedWithStandardErrorsAndVaultdKeepsServing() throws {
        let provider = try Provider()
        #expect(try provider.vault.ctl("set", "svc", "acct", input: "mine").status == 0)
        let prime = "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"
        let client = try PythonClient(provider, """
            DH = 'dh-ietf1024-sha256-aes128-cbc-pkcs7'
            p = int(sys.argv[2], 16)
            item = sys.argv[1]
            def open_dh(key):
                return call(SERVICE, 'Service', 'OpenSession', 'sv', DH, ('ay', key))
            print('dh', [open_dh(k) for k in [b'', b'\\x00', b'\\x01', (p - 1).to_bytes(128, 'big'), p.to_bytes(128, 'big'), b'\\x02' * 129]])
            print('algorithm', call(SERVICE, 'Service', 'OpenSession', 'sv', 'rot13', ('s', '')))
            print('plain input', call(SERVICE, 'Service', 'OpenSession', 'sv', 'plain', ('ay', b'')))
            # Another connection's session is no session of ours.
            other = secretstorage.dbus_init()
            theirs = call(SERVICE, 'Service', 'OpenSession', 'sv', 'plain', ('s', ''), on=other)[1]
            print('their session', call(item, 'Item', 'GetSecret', 'o', theirs))
            print('their secrets', call(SERVICE, 'Service', 'GetSecrets', 'aoo', [item], theirs))
            print('close theirs', call(theirs, 'Session', 'Close'))
            print('made up session', call(item, 'Item', 'GetSecret', 'o', '/org/freedesktop/secrets/session/999'))
            session = call(SERVICE, 'Service', 'OpenSession', 'sv', 'plain', ('s', ''))[1]
            def create(attributes, secret=b'x', label='l', session=session, params=b''):
                props = {P + 'Item.Label': ('s', label), P + 'Item.Attributes': ('a{ss}', attributes)}
                return call(COLLECTION, 'Collection', 'CreateItem', 'a{sv}(oayays)b', props, (session, params, secret, 'text/plain'), True)
            print('many', create({('a%d' % i): 'v' for i in range(65)}))
            print('long value', create({'a': 'v' * 2000}))
            print('long name', create({'n' * 300: 'v'}))
            print('control', create({'a': 'line\\nbreak'}))
            print('empty name', create({'': 'x'}))
            print('huge secret', create({'a': 'b'}, secret=b'x' * (64 * 1024 + 1)))
            print('long label', create({'a': 'b'}, label='l' * 2000))
            print('plain with iv', create({'a': 'b'}, params=b'0' * 16))
            print('their session create', create({'a': 'b'}, session=theirs))
            print('bad path', call(COLLECTION + '/izz_zz', 'Item', 'GetSecret', 'o', session))
            print('missing item', call(COLLECTION + '/i61_62', 'Item', 'GetSecret', 'o', session))
            print('other collection', call(SERVICE, 'Service', 'CreateCollection', 'a{sv}s', {}, 'work'))
            print('alias', call(SERVICE, 'Service', 'SetAlias', 'so', 'default', '/'))
            print('mine', bytes(call(item, 'Item', 'GetSecret', 'o', session)[0][2]))
            """, arguments: [Self.itemPath("svc", "acct"), prime])
        let invalid = "org.freedesktop.DBus.Error.InvalidArgs", noSession = "org.freedesktop.Secret.Error.NoSession"
        #expect(client.line() == "dh [\((0..<6).map { _ in "'\(invalid)'" }.joined(separator: ", "))]")
        #expect(client.line() == "algorithm org.freedesktop.DBus.Error.NotSupported")
        #expect(client.line() == "plain input \(invalid)")
        #expect(client.line() == "their session \(noSession)")
        #expect(client.line() == "their secrets \(noSession)")
        #expect(client.line() == "close theirs \(noSession)")
        #expect(client.line() == "made up session \(noSession)")
        for name in ["many", "long value", "long name", "control", "empty name", "huge secret", "long label", "plain with iv"] {
            #expect(client.line() == "\(name) \(invalid)")
        }
        #expect(client.line() == "their session create \(noSession)")
        #expect(client.line() == "bad path org.freedesktop.Secret.Error.NoSuchObject")
        #expect(client.line() == "missing item org.freedesktop.Secret.Error.NoSuchObject")
        #expect(client.line() == "other collection org.freedesktop.DBus.Error.NotSupported")
        #expect(client.line() == "alias org.freedesktop.DBus.Error.NotSupported")
        #expect(client.line() == "mine b'mine'")
        client.process.waitUntilExit()
        #expect(provider.vault.daemonPIDs().count == 1)
        #expect(try provider.vault.ctl("list").text.split(separator: "\n").count == 1)
    }

    @Test func vaultdKilledWhileAClientHoldsASessionFailsTheNextCallCleanlyAndARetryWorks() throws {
        let provider = try Provider()
        let vault = provider.vault
        #expect(try vault.ctl("set", "svc", "acct", input: "survives").status == 0)
        let client = try PythonClient(provider, """
            session = open_session(connection)
            print('before', secretstorage.Item(connection, sys.argv[1], session).get_secret())
            sys.stdin.readline()
            print('after', call(sys.argv[1], 'Item', 'GetSecret', 'o', session.object_path))
            print('retry', secretstorage.Item(connection, sys.argv[1], open_session(connection)).get_secret())
            """, arguments: [Self.itemPath("svc", "acct")])
        #expect(client.line() == "before b'survives'")
        for pid in vault.daemonPIDs() { kill(pid, SIGKILL) }
        // The bus releases the name when the connection drops.
        for _ in 0..<500 {
            if try !provider.nameHasOwner() { break }
            usleep(10_000)
        }
        try provider.start()
        client.input.fileHandleForWriting.write(Data("go\n".utf8))
        #expect(client.line() == "after org.freedesktop.Secret.Error.NoSession")
        #expect(client.line() == "retry b'survives'")
        client.process.waitUntilExit()
        #expect(client.process.terminationStatus == 0)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: HelperSharingTests.libsecretSource), "needs the libsecret helper's source from Debian's git package"))
    func gitCredentialThroughGitCredentialLibsecretKeepsItsItemsInVault() throws {
        let provider = try Provider()
        let vault = provider.vault
        let libsecret = try HelperSharingTests().buildLibsecretHelper(vault)
        func git(_ operation: String, _ lines: String) throws -> VaultHarness.Result {
            try vault.run(["/usr/bin/git", "-c", "credential.helper=", "-c", "credential.helper=" + libsecret, "credential", operation],
                          input: Array(lines.utf8), environment: ["GIT_TERMINAL_PROMPT": "0"])
        }
        #expect(try git("approve", "protocol=https\nhost=forge.example\nusername=carol\npassword=from-git\n\n").status == 0)
        let filled = try git("fill", "protocol=https\nhost=forge.example\n\n")
        #expect(filled.text == "protocol=https\nhost=forge.example\nusername=carol\npassword=from-git\n", "\(filled.stderr)")
        // The item is vault's, under a key vault made up (git's attributes have no service).
        let listed = try vault.ctl("list", ItemKey.attributeOnlyService, "--json").text
        #expect(listed.contains("forge.example"), "\(listed)")
        vault.stopDaemons()
        try provider.start()
        #expect(try git("fill", "protocol=https\nhost=forge.example\n\n").text.contains("password=from-git"))
        #expect(try git("reject", "protocol=https\nhost=forge.example\nusername=carol\npassword=from-git\n\n").status == 0)
        #expect(try git("fill", "protocol=https\nhost=forge.example\n\n").status != 0)
        #expect(!(try vault.ctl("list").text.contains("forge.example")))
    }

    @Test func aClientStartingBeforeVaultdGetsItStartedByDBusActivation() throws {
        let provider = try Provider(start: false, activation: true)
        let vault = provider.vault
        #expect(vault.daemonPIDs().isEmpty)
        #expect(try provider.secretTool(["store", "--label=Activated", "service", "early", "username", "bird"], input: "activated").status == 0)
        #expect(vault.daemonPIDs().count == 1)
        #expect(try vault.ctl("get", "early", "bird").stdout == Array("activated".utf8))
        #expect(try provider.status()["secret_service_provider"] as? Bool == true)
    }

    /// This dbus-daemon (1.14) gives no ProcessFD: by default no rule matches a D-Bus caller, and
    /// the refusal says why; with --trust-bus-pids the bus's pid binds it and rules apply.
    @Test func accessRulesAndTheAuditLogApplyToDBusCallers() throws {
        let provider = try Provider()
        let vault = provider.vault
        #expect(try vault.ctl("set", "guarded", "acct", input: "only-secret-tool").status == 0)
        #expect(try vault.ctl("allow", "guarded", "acct", "/usr/bin/secret-tool").status == 0)
        let unbound = try provider.secretTool(["lookup", "service", "guarded", "username", "acct"])
        #expect(unbound.stdout.isEmpty && unbound.stderr.contains("cannot tell which process holds its connection"), "\(unbound.stderr)")
        #expect(try vault.ctl("doctor").text.contains("no rule matches a D-Bus caller"))
        vault.stopDaemons()
        try provider.start(["--trust-bus-pids"])
        #expect(try provider.secretTool(["lookup", "service", "guarded", "username", "acct"]).text == "only-secret-tool")
        let refused = try PythonClient(provider, """
            session = call(SERVICE, 'Service', 'OpenSession', 'sv', 'plain', ('s', ''))[1]
            print('get', call(sys.argv[1], 'Item', 'GetSecret', 'o', session))
            print('gets', call(SERVICE, 'Service', 'GetSecrets', 'aoo', [sys.argv[1]], session))
            """, arguments: [Self.itemPath("guarded", "acct")])
        #expect(refused.line() == "get org.freedesktop.DBus.Error.AccessDenied")
        #expect(refused.line() == "gets org.freedesktop.DBus.Error.AccessDenied")
        refused.process.waitUntilExit()
        let audit = try vault.ctl("audit", "--json").text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["service"] as? String == "guarded" && $0["op"] as? String == "get" }
        #expect(audit.contains { $0["exe"] as? String == "/usr/bin/secret-tool" && $0["result"] as? String == "ok" }, "\(audit)")
        #expect(audit.contains { ($0["exe"] as? String)?.contains("python") == true && $0["result"] as? String == "denied" }, "\(audit)")
    }
}

