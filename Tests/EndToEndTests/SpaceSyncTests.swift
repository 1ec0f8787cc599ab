import Foundation
import Testing
import VaultCore

/// Spaces between machines, each a vaultd with its own home, through one real OpenBao (`bao
/// server -dev`): enrolment by fingerprint, set on one and read on the other, a delete, two
/// edits made apart (one current, one conflict copy, nothing lost), a device removed (the key
/// rotates and it sees nothing written afterwards), and an engine that rolls the index back or
/// moves a record to another item's name: refused and reported. The engine's bytes never hold
/// a name or a secret. Rounds are run with `space sync`; every wait is bounded.
@Suite(.serialized) struct SpaceSyncTests {
    let remotes = RemoteEngineTests()

    /// A machine: a vaultd of its own with the engine as remote `team`.
    func machine(_ bao: OpenBaoServer) throws -> VaultHarness {
        let vault = remotes.vault()
        vault.environment["VAULT_SPACE_INTERVAL"] = "1h"  // rounds only when the test asks
        try remotes.addToken(vault, bao)
        return vault
    }

    /// `laptop` creates space `home`; `server` joins it and is admitted by its fingerprint.
    func enrolled() throws -> (OpenBaoServer, VaultHarness, VaultHarness) {
        let laptop = remotes.vault()
        laptop.environment["VAULT_SPACE_INTERVAL"] = "1h"
        let bao = try remotes.engine(laptop)
        try remotes.addToken(laptop, bao)
        let server = try machine(bao)
        let created = try laptop.ctl("space", "create", "home", "--remote", "team", "--device", "laptop")
        try #require(created.status == 0, "\(created.stderr)")
        try join(server, as: "server", admittedBy: laptop, checkingAWrongWord: true)
        return (bao, laptop, server)
    }

    /// `joiner` joins space `home` as `device`; `member` admits it by the words it printed.
    func join(_ joiner: VaultHarness, as device: String, admittedBy member: VaultHarness, checkingAWrongWord: Bool = false) throws {
        let (join, output) = try joiner.startCtl(["space", "join", "home", "--remote", "team", "--device", device, "--timeout", "60s"])
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            printed.append(chunk)
        }
        let line = String(decoding: printed, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        try #require(line.hasPrefix("fingerprint: "), "\(line)")
        let words = line.dropFirst("fingerprint: ".count).split(separator: " ").map(String.init)
        #expect(words.count == 8)
        if checkingAWrongWord {
            let wrong = try member.ctl(["space", "admit", "home"] + words.dropLast() + ["zipper" == words.last ? "zebra" : "zipper"])
            #expect(wrong.status == 3 && wrong.stderr.contains("no device waiting to join"), "\(wrong.stderr)")
        }
        let admitted = try member.ctl(["space", "admit", "home"] + words)
        try #require(admitted.status == 0, "\(admitted.stderr)")
        #expect(remotes.waitUntil(30) { !join.isRunning })
        #expect(join.terminationStatus == 0)
    }

    func sync(_ vault: VaultHarness) throws {
        let result = try vault.ctl("space", "sync", "home")
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Every entry of the space as the engine keeps it, path → fields.
    func entries(_ bao: OpenBaoServer) throws -> [String: [String: String]] {
        var found: [String: [String: String]] = [:]
        var folders = ["vault-spaces/home/"]
        while let folder = folders.popLast() {
            let listed = try bao.bao(["kv", "list", "-mount=secret", "-format=json", folder])
            let names = (try? JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [String]) ?? []
            for name in names {
                if name.hasSuffix("/") { folders.append(folder + name) } else { found[folder + name] = try bao.get(folder + name) }
            }
        }
        return found
    }

    @Test func twoMachinesShareItemsAndTheEngineSeesNone() throws {
        let (bao, laptop, server) = try enrolled()
        #expect(try laptop.ctl(["set", "db.example.com", "alice"], input: Array("first-secret".utf8)).status == 0)
        let added = try laptop.ctl("space", "add", "home", "db.example.com", "alice")
        #expect(added.status == 0, "\(added.stderr)")
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "db.example.com", "alice").text == "first-secret")
        // Changed on the server, seen on the laptop.
        #expect(try server.ctl(["set", "db.example.com", "alice"], input: Array("second-secret".utf8)).status == 0)
        try sync(server)
        try sync(laptop)
        #expect(try laptop.ctl("get", "db.example.com", "alice").text == "second-secret")
        let status = try laptop.ctl("space", "status", "home", "--json")
        let body = try JSONSerialization.jsonObject(with: Data(status.stdout)) as? [String: Any] ?? [:]
        #expect(body["items"] as? Int == 1 && body["pending"] as? Int == 0 && (body["devices"] as? [Any])?.count == 2, "\(body)")
        // The engine holds no name, account, label or secret.
        let stored = String(decoding: try JSONSerialization.data(withJSONObject: try entries(bao)), as: UTF8.self)
        for plain in ["db.example.com", "alice", "first-secret", "second-secret"] { #expect(!stored.contains(plain), "\(plain)") }
        // A delete reaches the other machine.
        #expect(try laptop.ctl("delete", "db.example.com", "alice").status == 0)
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "db.example.com", "alice").status == 3)
        // An item with access rules is never shared; one given rules after it was shared is held back.
        #expect(try laptop.ctl(["set", "guarded", "x"], input: Array("g".utf8)).status == 0)
        #expect(try laptop.ctl("allow", "guarded", "x", "/bin/true").status == 0)
        let refused = try laptop.ctl("space", "add", "home", "guarded", "x")
        #expect(refused.status == 2 && refused.stderr.contains("access rules"), "\(refused.stderr)")
        #expect(try laptop.ctl(["set", "later", "x"], input: Array("l1".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "later", "x").status == 0)
        try sync(laptop)
        try sync(server)
        #expect(try laptop.ctl("allow", "later", "x", "/bin/true").status == 0)
        #expect(try laptop.ctl(["set", "later", "x"], input: Array("l2".utf8)).status == 0)
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "later", "x").text == "l1")
        let held = try JSONSerialization.jsonObject(with: Data(try laptop.ctl("space", "status", "home", "--json").stdout)) as? [String: Any]
        #expect(held?["heldBack"] as? Int == 1 && held?["pending"] as? Int == 0, "\(String(describing: held))")
        // Taken out of the space: gone from the other machine, kept here.
        #expect(try laptop.ctl("disallow", "later", "x", "/bin/true").status == 0)
        let removed = try laptop.ctl("space", "remove", "home", "later", "x")
        #expect(removed.status == 0, "\(removed.stderr)")
        try sync(laptop)  // its own tombstone is not taken back in for another device's deletion
        try sync(server)
        #expect(try server.ctl("get", "later", "x").status == 3)
        #expect(try laptop.ctl("get", "later", "x").text == "l2")
        // Another device's record for an item that has rules here is neither applied nor copied.
        func guardedModified() throws -> String? {
            let items = try JSONSerialization.jsonObject(with: Data(try laptop.ctl("list", "guarded", "--json").stdout)) as? [[String: Any]]
            return items?.first { $0["account"] as? String == "x" }?["modified"] as? String
        }
        let before = try guardedModified()
        #expect(before != nil)
        #expect(try server.ctl(["set", "guarded", "x"], input: Array("from-elsewhere".utf8)).status == 0)
        #expect(try server.ctl("space", "add", "home", "guarded", "x").status == 0)
        try sync(server)
        try sync(laptop)
        #expect(try guardedModified() == before)
        #expect(!(try laptop.ctl("list").text.contains("(conflict from")))
        #expect(try laptop.ctl("space", "status", "home").text.contains("has access rules on this device"))
        // A second space of the same name on this device is refused.
        let again = try laptop.ctl("space", "create", "home", "--remote", "team")
        #expect(again.status == 6, "\(again.stderr)")
    }

    /// An item taken out of a space stays out on every device, whichever rounds run first; the
    /// device that took it out keeps it, and it is shared again by `space add` (the kept value
    /// goes out) or by another device sharing an item of the same name (nothing lost).
    @Test func anItemTakenOutStaysOutUntilItIsSharedAgain() throws {
        let (bao, laptop, server) = try enrolled()
        defer { withExtendedLifetime(bao) {} }
        func status(_ vault: VaultHarness) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(try vault.ctl("space", "status", "home", "--json").stdout)) as? [String: Any] ?? [:]
        }
        #expect(try laptop.ctl(["set", "mail", "me"], input: Array("m1".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "mail", "me").status == 0)
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "mail", "me").text == "m1")
        #expect(try laptop.ctl("space", "remove", "home", "mail", "me").status == 0)
        for _ in 0..<2 {
            try sync(laptop)
            try sync(server)
        }
        #expect(try server.ctl("get", "mail", "me").status == 3)
        #expect(try laptop.ctl("get", "mail", "me").text == "m1")
        let out = try status(laptop)
        #expect(out["items"] as? Int == 0 && out["pending"] as? Int == 0, "\(out)")
        let twice = try laptop.ctl("space", "remove", "home", "mail", "me")
        #expect(twice.status == 3 && twice.stderr.contains("is not shared"), "\(twice.stderr)")
        // Shared again from here: the kept value goes out, and later edits come back.
        #expect(try laptop.ctl(["set", "mail", "me"], input: Array("m2".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "mail", "me").status == 0)
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "mail", "me").text == "m2")
        #expect(try server.ctl(["set", "mail", "me"], input: Array("m3".utf8)).status == 0)
        try sync(server)
        try sync(laptop)
        #expect(try laptop.ctl("get", "mail", "me").text == "m3")
        // Taken out by the server this time, then shared by the laptop under the same name after
        // an edit there: the server's kept item meets the laptop's later one; both survive.
        #expect(try server.ctl("space", "remove", "home", "mail", "me").status == 0)
        try sync(laptop)
        #expect(try laptop.ctl("get", "mail", "me").status == 3)
        #expect(try laptop.ctl(["set", "mail", "me"], input: Array("m4".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "mail", "me").status == 0)
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "mail", "me").text == "m4")
        let copies = try server.ctl("list", "mail").text
        #expect(copies.contains("(conflict from"), "\(copies)")
        let conflicted = try status(server)
        #expect((conflicted["conflicts"] as? [Any])?.count == 1 && conflicted["items"] as? Int == 1, "\(conflicted)")
    }

    /// Offline (the engine stopped), a machine keeps working from its local store; its change
    /// is pushed once the engine is back, and reaches the other machine.
    @Test func aMachineOfflineCatchesUpWhenTheEngineIsBack() throws {
        let (bao, laptop, server) = try enrolled()
        #expect(try laptop.ctl(["set", "vpn", "me"], input: Array("v1".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "vpn", "me").status == 0)
        try sync(laptop)
        try sync(server)
        bao.pause()
        #expect(try laptop.ctl(["set", "vpn", "me"], input: Array("v2".utf8)).status == 0)
        #expect(try laptop.ctl("get", "vpn", "me").text == "v2")
        let offline = try laptop.ctl("space", "sync", "home")
        #expect(offline.status == 5 && offline.stderr.contains("cannot be reached"), "\(offline.stderr)")
        let pending = try JSONSerialization.jsonObject(with: Data(try laptop.ctl("space", "status", "home", "--json").stdout)) as? [String: Any]
        #expect(pending?["pending"] as? Int == 1, "\(String(describing: pending))")
        bao.resume()
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "vpn", "me").text == "v2")
        // A change made through a door is pushed about a second later, without waiting for a round.
        #expect(try laptop.ctl(["set", "vpn", "me"], input: Array("v3".utf8)).status == 0)
        #expect(try remotes.waitUntil(10) { try server.ctl("space", "sync", "home").status == 0 && server.ctl("get", "vpn", "me").text == "v3" })
    }

    /// A thousand shared items (the space's state is one small item per shared item, so no
    /// size limit of one item caps a space), pushed and pulled in one round each.
    @Test func aThousandItemsReachTheOtherMachine() throws {
        let (bao, laptop, server) = try enrolled()
        defer { withExtendedLifetime(bao) {} }
        let program = """
            import json, socket, sys
            connection = socket.socket(socket.AF_UNIX)
            connection.connect(sys.argv[1])
            reader = connection.makefile("rb")
            for i in range(1000):
                for request in ({"op": "set", "service": "bulk", "account": f"item-{i:04d}", "secret": f"secret-{i:04d}"},
                                {"op": "space_add", "name": "home", "service": "bulk", "account": f"item-{i:04d}"}):
                    connection.sendall(json.dumps(request).encode() + b"\\n")
                    answer = json.loads(reader.readline())
                    if not answer["ok"]:
                        sys.exit(answer["error"]["message"])
            """
        let added = try laptop.run(["/usr/bin/python3", "-c", program, laptop.socketPath])
        try #require(added.status == 0, "\(added.stderr)")
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("list", "bulk").text.split(separator: "\n").count == 1000)
        #expect(try server.ctl("get", "bulk", "item-0999").text == "secret-0999")
        let status = try JSONSerialization.jsonObject(with: Data(try laptop.ctl("space", "status", "home", "--json").stdout)) as? [String: Any]
        #expect(status?["items"] as? Int == 1000 && status?["pending"] as? Int == 0, "\(String(describing: status))")
    }

    /// Not admitted in time: exit 5, and asking again waits with the same keys (the same words).
    @Test func joiningAgainKeepsTheSameFingerprint() throws {
        let (bao, _, _) = try enrolled()
        let late = try machine(bao)
        let first = try late.ctl("space", "join", "home", "--remote", "team", "--timeout", "1s")
        #expect(first.status == 5 && first.stderr.contains("not admitted"), "\(first.stderr)")
        let second = try late.ctl("space", "join", "home", "--remote", "team", "--timeout", "1s")
        #expect(second.status == 5 && first.text.hasPrefix("fingerprint: ") && second.text == first.text, "\(first.text) \(second.text)")
        let unknown = try late.ctl("space", "join", "elsewhere", "--remote", "team", "--timeout", "1s")
        #expect(unknown.status == 3 && unknown.stderr.contains("holds no space"), "\(unknown.stderr)")
    }

    @Test func twoEditsMadeApartKeepOneCurrentAndOneCopy() throws {
        let (bao, laptop, server) = try enrolled()
        defer { withExtendedLifetime(bao) {} }
        #expect(try laptop.ctl(["set", "api", "token"], input: Array("v0".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "api", "token").status == 0)
        try sync(laptop)
        try sync(server)
        // Both change it before either syncs; the server's edit is the later one.
        #expect(try laptop.ctl(["set", "api", "token"], input: Array("from-laptop".utf8)).status == 0)
        usleep(20_000)
        #expect(try server.ctl(["set", "api", "token"], input: Array("from-server".utf8)).status == 0)
        try sync(laptop)
        try sync(server)
        try sync(server)
        try sync(laptop)
        #expect(try laptop.ctl("get", "api", "token").text == "from-server")
        #expect(try server.ctl("get", "api", "token").text == "from-server")
        // Nothing lost: the laptop's edit is a copy on the machine that met the conflict (the
        // server when the laptop pushed first, else the laptop), listed by status and doctor.
        let holder = try #require(try [server, laptop].first { try $0.ctl("list").text.contains("token (conflict from") })
        let status = try holder.ctl("space", "status", "home").text
        #expect(status.contains("conflict: api (token)") && status.contains("space resolve"), "\(status)")
        let overall = try holder.ctl("status").text
        // The server syncs through the engine token the laptop handed it (remote space-home).
        #expect(overall.contains("space home: remote '\(holder === server ? "space-home" : "team")', admitted, 1 item, 1 conflict"), "\(overall)")
        let doctor = try holder.ctl("doctor").text
        #expect(doctor.contains("Spaces") && doctor.contains("conflict: api (token)"), "\(doctor)")
        // Resolved by taking the copy: its value is the item's everywhere.
        let resolved = try holder.ctl("space", "resolve", "home", "api", "token", "--keep", "copy")
        #expect(resolved.status == 0, "\(resolved.stderr)")
        try sync(holder)
        for machine in [laptop, server] { try sync(machine) }
        #expect(try laptop.ctl("get", "api", "token").text == "from-laptop")
        #expect(try server.ctl("get", "api", "token").text == "from-laptop")
        #expect(!(try holder.ctl("space", "status", "home").text.contains("conflict:")))
    }

    @Test func aRemovedDeviceSeesNothingWrittenAfterwards() throws {
        let (bao, laptop, server) = try enrolled()
        #expect(try laptop.ctl(["set", "mail", "me"], input: Array("before".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "mail", "me").status == 0)
        try sync(laptop)
        try sync(server)
        #expect(try server.ctl("get", "mail", "me").text == "before")
        let removed = try laptop.ctl("space", "remove-device", "home", "server")
        #expect(removed.status == 0 && removed.text.contains("rotated"), "\(removed.stderr)")
        #expect(try laptop.ctl(["set", "mail", "me"], input: Array("after".utf8)).status == 0)
        try sync(laptop)
        _ = try server.ctl("space", "sync", "home")
        #expect(try server.ctl("get", "mail", "me").text == "before")
        let generations = try entries(bao).filter { $0.key.contains("/items/") }.compactMap { $0.value["generation"] }
        #expect(!generations.isEmpty && generations.allSatisfy { $0 == "2" }, "\(generations)")
    }

    @Test func anEngineThatRollsBackOrMovesARecordIsRefused() throws {
        let (bao, laptop, server) = try enrolled()
        for (account, value) in [("one", "1"), ("two", "2")] {
            #expect(try laptop.ctl(["set", "svc", account], input: Array(value.utf8)).status == 0)
            #expect(try laptop.ctl("space", "add", "home", "svc", account).status == 0)
        }
        try sync(laptop)
        try sync(server)
        // "two" changes: its entry is the one at version 2.
        #expect(try laptop.ctl(["set", "svc", "two"], input: Array("2b".utf8)).status == 0)
        try sync(laptop)
        let items = try entries(bao).filter { $0.key.contains("/items/") }.map(\.key)
        func version(_ path: String) throws -> Int {
            let metadata = try JSONSerialization.jsonObject(with: Data(try bao.must("kv", "metadata", "get", "-mount=secret", "-format=json", path).utf8)) as? [String: Any]
            return ((metadata?["data"] as? [String: Any])?["current_version"] as? Int) ?? 0
        }
        let two = try #require(try items.first { try version($0) == 2 }), one = try #require(items.first { $0 != two })
        // The engine puts "one"'s record where "two"'s goes.
        try bao.put(two, try bao.get(one))
        try sync(server)
        let kept = try server.ctl("get", "svc", "two")
        let afterMove = try server.ctl("space", "status", "home").text
        #expect(kept.text == "2", "\(kept.stderr) \(afterMove)")
        var status = try server.ctl("space", "status", "home").text
        #expect(status.contains("refused from the engine") && status.contains("does not open"), "\(status)")
        // The engine serves an older index.
        let older = try JSONSerialization.jsonObject(with: Data(try bao.must("kv", "get", "-mount=secret", "-format=json", "-version=1", "vault-spaces/home/index").utf8)) as? [String: Any]
        try bao.put("vault-spaces/home/index", ((older?["data"] as? [String: Any])?["data"] as? [String: String]) ?? [:])
        try sync(server)
        status = try server.ctl("space", "status", "home").text
        #expect(status.contains("rolled back"), "\(status)")
    }
}
