import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultRemotes
import VaultStores

/// The agent's token and cache rules against a scripted engine and clock: renewal before
/// expiry, a new login when renewal is not enough or the token is revoked, the cache while the
/// engine is away, and its age limit.
@Suite struct RemoteAgentTests {
    let engine = ScriptedEngine()
    let log = RecordingLogHandler()

    func agent() -> RemoteAgent {
        RemoteAgent(store: ActiveStore(store: InMemoryStore(), reason: "a test"), logger: Logger(handler: log),
                    refreshInterval: 1, httpTimeout: 1, transport: engine, clock: engine.clock)
    }

    func add(_ agent: RemoteAgent, maxAge: Double = 60) throws {
        let settings = RemoteSettings(name: "team", url: "http://127.0.0.1:8200", maxAge: maxAge, auth: RemoteAuth(method: .approle, roleID: "role"))
        _ = try agent.add(settings, credential: "secret-id")
    }

    let name = try! RemoteName("team")
    let path = try! KVPath("app/db")

    @Test func theTokenIsRenewedThenReplacedWhenItsMaximumIsReached() throws {
        let agent = agent()
        engine.put("app/db", ["password": "p1"])
        try add(agent)
        #expect(engine.logins == 1)
        #expect(try agent.read(name, path, version: nil, refresh: true).secret.fields["password"] == "p1")
        // Two thirds of the 10 s lease gone: renewed, the same token, no new login.
        engine.advance(8)
        _ = try agent.read(name, path, version: nil, refresh: true)
        #expect(engine.renewals == 1 && engine.logins == 1)
        // Past the token's maximum life: a new login, by vaultd alone.
        engine.advance(30)
        #expect(try agent.read(name, path, version: nil, refresh: true).secret.fields["password"] == "p1")
        #expect(engine.logins == 2)
        // Revoked behind vaultd's back: the 403 leads to one new login and the read succeeds.
        engine.revokeAll()
        #expect(try agent.read(name, path, version: nil, refresh: true).secret.fields["password"] == "p1")
        #expect(engine.logins == 3)
        #expect(!log.recorded.joined().contains("s.token") && !log.recorded.joined().contains("secret-id"))
    }

    @Test func theCacheStandsInUntilMaxAge() throws {
        let agent = agent()
        engine.put("app/db", ["password": "p1"])
        try add(agent, maxAge: 30)
        _ = try agent.read(name, path, version: nil, refresh: false)
        let asked = engine.requests.count
        // Fresh (confirmed within two refresh intervals): served without asking the engine.
        _ = try agent.read(name, path, version: nil, refresh: false)
        #expect(engine.requests.count == asked)
        engine.setReachable(false)
        engine.advance(10)
        let offline = try agent.read(name, path, version: nil, refresh: false)
        #expect(offline.offline && offline.age == 10 && offline.secret.fields["password"] == "p1")
        engine.advance(25)
        #expect { try agent.read(name, path, version: nil, refresh: false) } throws: {
            ($0 as? VaultError)?.code == .unavailable && "\($0)".contains("last confirmed 35 s ago, older than the remote's --max-age of 30 s")
        }
        // Back: the background refresh confirms the copy again.
        engine.setReachable(true)
        agent.refreshAll()
        #expect(try agent.read(name, path, version: nil, refresh: false).age == 0)
    }

    @Test func theBackgroundRefreshFetchesANewerVersionAndWritesAreCheckedAndSet() throws {
        let agent = agent()
        engine.put("app/db", ["password": "p1", "user": "u"])
        try add(agent)
        _ = try agent.read(name, path, version: nil, refresh: false)
        engine.put("app/db", ["password": "p2", "user": "u"])
        agent.refreshAll()
        #expect(try agent.read(name, path, version: nil, refresh: false).secret.fields["password"] == "p2")
        #expect(try agent.write(name, path, field: "password", value: "p3", force: false).version == 3)
        #expect(engine.secrets["app/db"]?.last == ["password": "p3", "user": "u"])
        engine.put("app/db", ["password": "other", "user": "u"])
        #expect { try agent.write(name, path, field: "password", value: "p4", force: false) } throws: {
            ($0 as? VaultError)?.code == .conflict && "\($0)".contains("based on version 3") && "\($0)".contains("the engine has version 4")
        }
        #expect(engine.secrets["app/db"]?.count == 4)
    }

    /// `kv_put` without a field: the object becomes all the fields, in one version, by the same
    /// check-and-set; anything but an object of strings within the limits is refused, unwritten.
    @Test func aWholeSecretIsWrittenInOneVersionAndBadFieldsAreRefused() throws {
        let agent = agent()
        engine.put("app/db", ["password": "p1", "user": "u", "old": "x"])
        try add(agent)
        _ = try agent.read(name, path, version: nil, refresh: false)
        let fields = try KVFields.parse(#"{"password":"p2","user":"v"}"#)
        #expect(try agent.write(name, path, fields: fields, force: false).version == 2)
        #expect(engine.secrets["app/db"]?.last == ["password": "p2", "user": "v"])
        engine.put("app/db", ["password": "other"])
        #expect { try agent.write(name, path, fields: fields, force: false) } throws: { ($0 as? VaultError)?.code == .conflict }
        let many = "{" + (0...EngineAnswer.maximumFields).map { "\"f\($0)\":\"v\"" }.joined(separator: ",") + "}"
        let huge = #"{"password":""# + String(repeating: "a", count: EngineAnswer.maximumValue + 1) + #""}"#
        for bad in ["", "[]", "\"text\"", #"{"n":1}"#, #"{"n":null}"#, #"{"":"v"}"#, #"{"a\u0001":"v"}"#, many, huge, #"{"a":"v""#] {
            #expect(throws: VaultError.self, "\(bad.prefix(40))") { try KVFields.parse(bad) }
        }
        #expect { try agent.write(name, path, fields: ["ok": "v", "bad\n": "v"], force: true) } throws: { ($0 as? VaultError)?.code == .badRequest }
        #expect(engine.secrets["app/db"]?.count == 3)
    }
}
