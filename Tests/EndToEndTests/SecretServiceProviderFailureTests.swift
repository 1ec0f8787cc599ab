import Foundation
import Testing
import VaultCore

/// vaultd as the Secret Service when things go wrong: migrations refused while it serves (itself
/// or another vaultd on the same file), hostile D-Bus arguments, vaultd killed under a client.
@Suite struct SecretServiceProviderFailureTests {
    typealias Provider = SecretServiceProviderTests.Provider
    typealias PythonClient = SecretServiceProviderTests.PythonClient

    static func itemPath(_ service: String, _ account: String) -> String { SecretServiceProviderTests.itemPath(service, account) }

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
}
