import Foundation
import Testing
import VaultCore

/// The engine credential handed to a new machine once, through a real OpenBao: the machine
/// joins with a narrow token (its device entry, its keys, its handover: nothing of the space's
/// items), is admitted, takes the wrapped token and syncs with it as remote `space-home`. A
/// handover the engine replaced, and an admitting machine whose token may not make tokens,
/// leave the new machine on the credential it joined with, said so.
@Suite(.serialized) struct SpaceHandoverTests {
    let spaces = SpaceSyncTests()
    var remotes: RemoteEngineTests { spaces.remotes }

    /// A token whose policy lets a machine join space `home` and nothing else.
    func joinToken(_ bao: OpenBaoServer) throws -> String {
        let root = "vault-spaces/home"
        try bao.must("policy", "write", "join-home", "-", input: """
            path "secret/data/\(root)/space" { capabilities = ["read"] }
            path "secret/data/\(root)/devices/*" { capabilities = ["create", "update", "read"] }
            path "secret/metadata/\(root)/devices/*" { capabilities = ["list", "read"] }
            path "secret/data/\(root)/keys/*" { capabilities = ["read"] }
            path "secret/data/\(root)/handover/*" { capabilities = ["read"] }
            """)
        return try bao.must("token", "create", "-policy=join-home", "-ttl=1h", "-field=token")
    }

    /// `laptop` (remote `team` with the token `laptopToken` makes) creates space `home`; `server`
    /// has remote `team` with a join-only token.
    func machines(laptopToken: (OpenBaoServer) throws -> String = { _ in "root" }) throws -> (OpenBaoServer, VaultHarness, VaultHarness) {
        let laptop = remotes.vault()
        laptop.environment["VAULT_SPACE_INTERVAL"] = "1h"
        let bao = try remotes.engine(laptop)
        let added = try laptop.ctl(["remote", "add", "team", "--url", bao.address, "--auth", "token"], input: Array(try laptopToken(bao).utf8))
        try #require(added.status == 0, "\(added.stderr)")
        let server = remotes.vault()
        server.environment["VAULT_SPACE_INTERVAL"] = "1h"
        let narrow = try server.ctl(["remote", "add", "team", "--url", bao.address, "--auth", "token"], input: Array(try joinToken(bao).utf8))
        try #require(narrow.status == 0, "\(narrow.stderr)")
        let created = try laptop.ctl("space", "create", "home", "--remote", "team", "--device", "laptop")
        try #require(created.status == 0, "\(created.stderr)")
        return (bao, laptop, server)
    }

    func status(_ vault: VaultHarness) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try vault.ctl("space", "status", "home", "--json").stdout)) as? [String: Any] ?? [:]
    }

    /// Starts `space join` on `server` with a short timeout and answers the words it printed.
    func words(_ server: VaultHarness) throws -> [String] {
        let waited = try server.ctl("space", "join", "home", "--remote", "team", "--device", "server", "--timeout", "1s")
        #expect(waited.status != 0)
        #expect(waited.text.contains("fingerprint: "), "\(waited.stderr)")
        let line = waited.text.split(separator: "\n").first { $0.hasPrefix("fingerprint: ") } ?? ""
        return line.dropFirst("fingerprint: ".count).split(separator: " ").map(String.init)
    }

    @Test func aNewMachineSyncsWithTheCredentialHandedOverOnce() throws {
        let (bao, laptop, server) = try machines()
        // The join token alone cannot read the space's items.
        let denied = try bao.bao(["kv", "list", "-mount=secret", "vault-spaces/home/"], token: try joinToken(bao))
        #expect(denied.status != 0)
        let wrong = try laptop.ctl(["space", "admit", "home"] + Array(repeating: "acid", count: 8))
        #expect(wrong.status == 3, "\(wrong.stderr)")
        try spaces.join(server, as: "server", admittedBy: laptop)
        let body = try status(server)
        #expect(body["remote"] as? String == "space-home" && body["admitted"] as? Bool == true, "\(body)")
        #expect((body["problems"] as? [String] ?? []).isEmpty, "\(body)")
        #expect(try server.ctl("remote", "list").text.contains("space-home"))
        // Taken once: the sealed handover is gone from the engine, and it never held the token readable.
        #expect((try? bao.get("vault-spaces/home/handover/\(body["device"] as? String ?? "")"))?.isEmpty ?? true)
        // The handed token syncs what the join token could not read.
        #expect(try laptop.ctl(["set", "db.example.com", "alice"], input: Array("handed-secret".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "db.example.com", "alice").status == 0)
        try spaces.sync(laptop)
        try spaces.sync(server)
        #expect(try server.ctl("get", "db.example.com", "alice").text == "handed-secret")
        #expect(try server.ctl(["set", "db.example.com", "alice"], input: Array("from-server".utf8)).status == 0)
        try spaces.sync(server)
        try spaces.sync(laptop)
        #expect(try laptop.ctl("get", "db.example.com", "alice").text == "from-server")
    }

    @Test func aHandoverTheEngineReplacedIsRefusedAndReported() throws {
        let (bao, laptop, server) = try machines()
        let words = try words(server)
        try #require(words.count == 8)
        let device = try status(server)["device"] as? String ?? ""
        let admitted = try laptop.ctl(["space", "admit", "home"] + words)
        try #require(admitted.status == 0, "\(admitted.stderr)")
        #expect(admitted.text.contains("handed it an engine token"), "\(admitted.text)")
        // The engine (or another reader of the mount) puts a handover of its own choosing there.
        let path = "vault-spaces/home/handover/\(device)"
        var fields = try bao.get(path)
        fields["token"] = Data(repeating: 7, count: 80).base64EncodedString()
        try bao.put(path, fields)
        let body = try status(server)
        #expect(body["admitted"] as? Bool == true && body["remote"] as? String == "team", "\(body)")
        let problems = (body["problems"] as? [String] ?? []).joined(separator: "\n")
        #expect(problems.contains("does not open as handed by device"), "\(problems)")
        #expect(!(try server.ctl("remote", "list").text.contains("space-home")))
    }

    @Test func anAdmitterWhoseTokenMakesNoTokensSaysSo() throws {
        let (bao, laptop, server) = try machines { bao in
            try bao.must("policy", "write", "kv-only", "-", input: #"path "secret/*" { capabilities = ["create", "read", "update", "delete", "list"] }"#)
            return try bao.must("token", "create", "-policy=kv-only", "-ttl=1h", "-field=token")
        }
        let words = try words(server)
        try #require(words.count == 8)
        let admitted = try laptop.ctl(["space", "admit", "home"] + words)
        #expect(admitted.status == 0 && admitted.text.contains("no engine credential handed over"), "\(admitted.text) \(admitted.stderr)")
        let body = try status(server)
        #expect(body["admitted"] as? Bool == true && body["remote"] as? String == "team", "\(body)")
        withExtendedLifetime(bao) {}
    }

    @Test func anAdmitterThatMayNotMakeOrphansHandsOverAChildToken() throws {
        let (bao, laptop, server) = try machines { bao in
            try bao.must("policy", "write", "kv-and-children", "-", input: """
                path "secret/*" { capabilities = ["create", "read", "update", "delete", "list"] }
                path "auth/token/create" { capabilities = ["update"] }
                """)
            return try bao.must("token", "create", "-policy=kv-and-children", "-ttl=1h", "-field=token")
        }
        let words = try words(server)
        try #require(words.count == 8)
        let admitted = try laptop.ctl(["space", "admit", "home"] + words)
        #expect(admitted.status == 0 && admitted.text.contains("made as a child"), "\(admitted.text) \(admitted.stderr)")
        #expect(try status(server)["remote"] as? String == "space-home")
        #expect(try laptop.ctl(["set", "child", "x"], input: Array("c1".utf8)).status == 0)
        #expect(try laptop.ctl("space", "add", "home", "child", "x").status == 0)
        try spaces.sync(laptop)
        try spaces.sync(server)
        #expect(try server.ctl("get", "child", "x").text == "c1")
        withExtendedLifetime(bao) {}
    }
}
