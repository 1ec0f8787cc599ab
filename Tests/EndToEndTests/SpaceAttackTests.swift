import Foundation
import Testing
import VaultCore
import VaultCrypto
import VaultSpaces

/// A space under attack, through one real OpenBao: the engine itself (it holds no key), and a
/// device that turned hostile (its keys read from its own store, as its owner could), before and
/// after its removal. Every attack is refused and reported, and nothing it sent is applied.
@Suite(.serialized) struct SpaceAttackTests {
    let spaces = SpaceSyncTests()
    static let root = "vault-spaces/home/"

    func status(_ vault: VaultHarness) throws -> [String: Any] {
        let result = try vault.ctl("space", "status", "home", "--json")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]) ?? [:]
    }

    func problems(_ vault: VaultHarness) throws -> String {
        ((try status(vault)["problems"] as? [String]) ?? []).joined(separator: "\n")
    }

    func id(_ vault: VaultHarness) throws -> String { try #require(try status(vault)["device"] as? String) }

    /// The space's record in `vault`'s own store: what a device that turned hostile holds.
    func held(by vault: VaultHarness) throws -> SpaceState {
        let result = try vault.run([BuiltProducts.path("vault-store-tool"), "get", vault.vaultFile, ItemKey.spacesService, "home"])
        try #require(result.status == 0, "\(result.stderr)")
        return try SpaceState.decoding(SecretBytes(result.stdout))
    }

    /// A device entry the engine makes up.
    func madeUpDevice(_ bao: OpenBaoServer, name: String, state: SpaceDevice.State, admittedBy: String) throws -> (X25519KeyPair, String) {
        let pair = try X25519KeyPair.generate()
        let device = SpaceDevice(name: name, publicKey: pair.publicKey, state: state, admittedBy: admittedBy)
        try bao.put(Self.root + "devices/" + device.id, device.fields)
        return (pair, try device.id)
    }

    func device(_ bao: OpenBaoServer, _ id: String) throws -> SpaceDevice {
        try SpaceDevice(fields: bao.get(Self.root + "devices/" + id), id: id)
    }

    /// Adds to `id`'s key grants `key`, sealed by `sender`.
    func grant(_ bao: OpenBaoServer, _ key: SpaceKey, to id: String, from sender: X25519KeyPair, senderID: String, spaceID: String) throws {
        var grants = try bao.get(Self.root + "keys/" + id)
        grants.merge(try SpaceKeyGrant.fields(key, to: device(bao, id), from: sender, admitterID: senderID, spaceID: spaceID)) { $1 }
        try bao.put(Self.root + "keys/" + id, grants)
    }

    func itemGenerations(_ bao: OpenBaoServer) throws -> [String] {
        try spaces.entries(bao).filter { $0.key.contains("/items/") }.compactMap { $0.value["generation"] }
    }

    /// The engine lists a device of its own as admitted and hands the server a key from it, with
    /// an index under that key: the server takes no key from a device no member vouches for, and
    /// what it writes stays under the space's own key.
    @Test func aDeviceTheEngineMadeUpCannotHandOutAKey() throws {
        let (bao, laptop, server) = try spaces.enrolled()
        let spaceID = try #require(try bao.get(Self.root + "space")["id"])
        let (fake, fakeID) = try madeUpDevice(bao, name: "laptop 2", state: .admitted, admittedBy: try id(laptop))
        let chosen = try SpaceKey.generate(generation: 2, spaceID: spaceID)
        try grant(bao, chosen, to: try id(server), from: fake, senderID: fakeID, spaceID: spaceID)
        try bao.put(Self.root + "index", try SpaceIndex(seq: 100, writer: fakeID).sealed(spaceID: spaceID, key: chosen))
        _ = try server.ctl("space", "sync", "home")
        #expect(try status(server)["generation"] as? Int == 1)
        let reported1 = try problems(server)
        #expect(reported1.contains("the generation 2 key was not given by a member"), "\(reported1)")
        #expect(try server.ctl(["set", "mail", "me"], input: Array("server secret".utf8)).status == 0)
        #expect(try server.ctl("space", "add", "home", "mail", "me").status == 0)
        _ = try server.ctl("space", "sync", "home")
        let generations = try itemGenerations(bao)
        #expect(!generations.isEmpty && generations.allSatisfy { $0 == "1" }, "\(generations)")
        withExtendedLifetime(laptop) {}
    }

    /// A removal gives the new key only to the members a membership vouches for (not to a device
    /// the engine lists as admitted), refuses a name two devices share, and the removed device,
    /// with the key it kept and its entry put back to admitted, can neither write an item nor
    /// hand out a key.
    @Test func aRemovalSealsOnlyToMembersAndTheOldKeyForgesNothing() throws {
        let (bao, laptop, server) = try spaces.enrolled()
        #expect(try laptop.ctl(["set", "mail", "me"], input: Array("before".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "mail", "me").status == 0)
        try spaces.sync(laptop)
        try spaces.sync(server)
        let (laptopID, serverID) = (try id(laptop), try id(server))
        let kept = try held(by: server)
        let (_, fakeID) = try madeUpDevice(bao, name: "ci", state: .admitted, admittedBy: laptopID)
        _ = try madeUpDevice(bao, name: "server", state: .pending, admittedBy: "")
        let ambiguous = try laptop.ctl("space", "remove-device", "home", "server")
        #expect(ambiguous.status != 0 && ambiguous.stderr.contains("2 devices of space 'home' are named 'server'"), "\(ambiguous.stderr)")
        let removed = try laptop.ctl("space", "remove-device", "home", serverID)
        try #require(removed.status == 0, "\(removed.stderr)")
        #expect(try bao.get(Self.root + "keys/" + laptopID)["g2"] != nil)
        #expect((try? bao.get(Self.root + "keys/" + fakeID))?["g2"] == nil)
        #expect((try? bao.get(Self.root + "members/\(fakeID)/2")) == nil)
        #expect(try laptop.ctl(["set", "mail", "me"], input: Array("after".utf8)).status == 0)
        try spaces.sync(laptop)

        // The removed server writes under generation 1: a record of its own and an index listing it.
        let old = try kept.key(1)
        let name = try old.entryName(service: "mail", account: "me")
        let forged = SpaceItemRecord(service: "mail", account: "me", secret: SecretBytes(utf8: "forged"), seq: 1000, writer: serverID, modified: Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000)
        try bao.put(Self.root + "items/" + name, try forged.sealed(name: name, spaceID: kept.spaceID, key: old))
        try bao.put(Self.root + "index", try SpaceIndex(seq: 1_000_000, entries: [name: 1000], writer: serverID).sealed(spaceID: kept.spaceID, key: old))
        _ = try laptop.ctl("space", "sync", "home")
        #expect(try laptop.ctl("get", "mail", "me").text == "after")
        let reported2 = try problems(laptop)
        #expect(reported2.contains("older than generation 2 this device holds"), "\(reported2)")

        // Its entry put back to admitted, it hands the laptop a generation 3 key of its choosing.
        var entry = try device(bao, serverID)
        entry.state = .admitted
        try bao.put(Self.root + "devices/" + serverID, entry.fields)
        let chosen = try SpaceKey.generate(generation: 3, spaceID: kept.spaceID)
        try grant(bao, chosen, to: laptopID, from: try kept.deviceKeys(), senderID: serverID, spaceID: kept.spaceID)
        try bao.put(Self.root + "index", try SpaceIndex(seq: 2_000_000, writer: serverID).sealed(spaceID: kept.spaceID, key: chosen))
        _ = try laptop.ctl("space", "sync", "home")
        #expect(try status(laptop)["generation"] as? Int == 2)
        let reported3 = try problems(laptop)
        #expect(reported3.contains("the generation 3 key was not given by a member"), "\(reported3)")
        #expect(try laptop.ctl("get", "mail", "me").text == "after")
    }

    /// The engine answers a push's check-and-set with a failure and serves an older record as
    /// the newer one: refused as a replay; the local edit stays and no conflict copy is made.
    @Test func aReplayBehindAFailedCheckAndSetIsRefused() throws {
        let (bao, laptop, server) = try spaces.enrolled()
        #expect(try laptop.ctl(["set", "api", "token"], input: Array("v1".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "api", "token").status == 0)
        try spaces.sync(laptop)
        for value in ["v2", "v3"] {
            #expect(try laptop.ctl(["set", "api", "token"], input: Array(value.utf8)).status == 0)
            try spaces.sync(laptop)
        }
        try spaces.sync(server)
        #expect(try server.ctl("get", "api", "token").text == "v3")
        let entry = try #require(try spaces.entries(bao).keys.first { $0.contains("/items/") })
        let first = try JSONSerialization.jsonObject(with: Data(try bao.must("kv", "get", "-mount=secret", "-format=json", "-version=1", entry).utf8)) as? [String: Any]
        try bao.put(entry, try #require((first?["data"] as? [String: Any])?["data"] as? [String: String]))
        #expect(try server.ctl(["set", "api", "token"], input: Array("edited on the server".utf8)).status == 0)
        _ = try server.ctl("space", "sync", "home")
        #expect(try server.ctl("get", "api", "token").text == "edited on the server")
        let reported4 = try problems(server)
        #expect(reported4.contains("rolled back"), "\(reported4)")
        #expect(!(try server.ctl("list").text.contains("conflict from")))
    }
}
