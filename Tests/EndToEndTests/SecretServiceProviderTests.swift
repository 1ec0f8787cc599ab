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

