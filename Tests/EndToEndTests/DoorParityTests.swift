import Foundation
import Testing
import VaultCore

/// The two doors decide the same: one program reads one item through the socket and through the
/// Secret Service, and gets the same answer and the same audit record from each (one policy
/// core, `ItemService`, behind both).
@Suite struct DoorParityTests {
    typealias Provider = SecretServiceProviderTests.Provider
    typealias PythonClient = SecretServiceProviderTests.PythonClient

    /// Reads svc `both`, account `acct` through the socket (argv[1]) and then over D-Bus (argv[2]
    /// is the item's path); prints one line a door: the secret, or the error's code or name.
    static let readThroughBothDoors = """
        import json, socket as sockets
        with sockets.socket(sockets.AF_UNIX) as s:
            s.connect(sys.argv[1])
            s.sendall(b'{"id":1,"op":"get","service":"both","account":"acct"}\\n')
            answer = json.loads(s.makefile('rb').readline())
        print('socket', answer['result']['item']['secret'] if answer['ok'] else answer['error']['code'])
        session = call(SERVICE, 'Service', 'OpenSession', 'sv', 'plain', ('s', ''))[1]
        reply = call(sys.argv[2], 'Item', 'GetSecret', 'o', session)
        print('dbus', bytes(reply[0][2]).decode() if isinstance(reply, tuple) else reply)
        """

    func records(_ vault: VaultHarness) throws -> [[String: String]] {
        try vault.ctl("audit", "--json").text.split(separator: "\n").compactMap { line in
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return record.filter { $0.key != "time" }.mapValues { "\($0)" }
        }.filter { $0["service"] == "both" && $0["op"] == "get" && $0["exe"]?.contains("python") == true }
    }

    @Test func oneProgramGetsTheSameAnswerAndTheSameRecordFromBothDoors() throws {
        // This bus gives no ProcessFD: the D-Bus door knows the caller by its pid only when told to.
        let provider = try Provider(arguments: ["--trust-bus-pids"])
        let vault = provider.vault
        #expect(try vault.ctl("set", "both", "acct", input: "one-secret").status == 0)
        let arguments = [vault.socketPath, SecretServiceProviderTests.itemPath("both", "acct")]

        let unguarded = try PythonClient(provider, Self.readThroughBothDoors, arguments: arguments)
        #expect(unguarded.line() == "socket one-secret")
        #expect(unguarded.line() == "dbus one-secret")
        unguarded.process.waitUntilExit()
        var read = try records(vault)
        #expect(read.count == 2 && read.first == read.last && read.first?["result"] == "ok", "\(read)")

        // Guarded for another program: both doors refuse it, and record the same refusal.
        #expect(try vault.ctl("allow", "both", "acct", "/usr/bin/secret-tool").status == 0)
        let refused = try PythonClient(provider, Self.readThroughBothDoors, arguments: arguments)
        #expect(refused.line() == "socket denied")
        #expect(refused.line() == "dbus org.freedesktop.DBus.Error.AccessDenied")
        refused.process.waitUntilExit()
        read = try records(vault)
        #expect(read.count == 4 && read[2] == read[3] && read[2]["result"] == "denied", "\(read)")

        // Allowed by a rule: the same grant on both records.
        let python = URL(fileURLWithPath: SecretServiceTests.packageRoot + "/.venv/bin/python").resolvingSymlinksInPath().path
        #expect(try vault.ctl("allow", "--any-caller", "both", "acct", python).status == 0)
        let allowed = try PythonClient(provider, Self.readThroughBothDoors, arguments: arguments)
        #expect(allowed.line() == "socket one-secret")
        #expect(allowed.line() == "dbus one-secret")
        allowed.process.waitUntilExit()
        read = try records(vault)
        #expect(read.count == 6 && read[4] == read[5] && read[4]["result"] == "ok" && read[4]["grant"] == "rule", "\(read)")
    }
}
