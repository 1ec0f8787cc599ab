import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultStores
import VaultTestSupport

/// `resolve_credential` in-process, over the in-memory store (which keeps other helpers' items
/// as vaultd's Secret Service provider does): what it finds for each helper, and that every item
/// it reads is decided and audited exactly as the request of its own (`get`, `foreign_get`,
/// `token`) would be.
@Suite struct CredentialResolutionTests {
    let directory = TemporaryDirectory(prefix: "vault-resolve")
    let dispatcher: RequestDispatcher

    init() {
        dispatcher = .inMemory(in: directory)
    }

    static let gitQuery = #""helper":"git","service":"git:https://h.example""#
    static let libsecret = #""attributes":{"protocol":"https","server":"h.example","port":null,"object":null}"#

    func send(_ json: String) throws -> [String: Any] {
        var line = MessageCodec.encode(dispatcher.handle(line: Array(json.utf8)))
        #expect(line.removeLast() == 10)
        return try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
    }

    func resolve(_ fields: String) throws -> [String: Any] {
        try send(#"{"id":1,"op":"resolve_credential","# + fields + "}")
    }

    func result(_ answer: [String: Any]) -> [String: Any]? { answer["result"] as? [String: Any] }
    func found(_ answer: [String: Any]) -> [String: Any]? { result(answer)?["resolution"] as? [String: Any] }
    func item(_ answer: [String: Any]) -> [String: Any]? { result(answer)?["item"] as? [String: Any] }
    func error(_ answer: [String: Any]) -> [String: Any]? { answer["error"] as? [String: Any] }

    func set(_ service: String, _ account: String, _ secret: String) throws {
        #expect(result(try send(#"{"op":"set","service":"\#(service)","account":"\#(account)","secret":"\#(secret)"}"#)) != nil)
    }

    /// An item another helper stored through the Secret Service: a made-up key, its attributes.
    func foreignItem(_ attributes: [String: String], secret: String) throws {
        _ = try dispatcher.items.create(
            named: nil, attributes: attributes, replacing: false, secret: SecretBytes(utf8: secret),
            changes: ItemChanges(label: "theirs", attributes: attributes), by: ItemRequest(.unknown))
    }

    func gitItem(user: String, secret: String) throws {
        try foreignItem(["xdg:schema": "org.git.Password", "protocol": "https", "server": "h.example", "user": user], secret: secret)
    }

    /// The audit log's records, without their times and chains.
    func records() throws -> [AuditEntryBody] {
        guard let key = try dispatcher.store.perform({ try AuditKey.get(in: $0, creating: false) }) else { return [] }
        return try dispatcher.access.audit.records(key: key, after: .min).records.map { var entry = $0.unchained; entry.time = ""; return entry }
    }

    @Test func vaultsOwnItemIsTheAccountsOrTheServicesOnlyOneReadAsGetReadsIt() throws {
        try set("git:https://h.example", "alice", "pw-alice")
        for fields in [Self.gitQuery + #","account":"alice","# + Self.libsecret, Self.gitQuery + "," + Self.libsecret] {
            let answer = try resolve(fields)
            #expect(found(answer)?["found"] as? String == "item", "\(answer)")
            #expect(item(answer)?["account"] as? String == "alice" && item(answer)?["secret"] as? String == "pw-alice")
        }
        let before = try records().count
        _ = try send(#"{"op":"get","service":"git:https://h.example","account":"alice"}"#)
        let all = try records()
        #expect(all.count == before + 1 && Set(all.suffix(3).map { "\($0)" }).count == 1, "the same record as get's, each time")
        #expect(all.last?.op == "get" && all.last?.service == "git:https://h.example" && all.last?.account == "alice" && all.last?.result == "ok")
    }

    @Test func gitCredentialLibsecretsItemStandsInForAMissingOne() throws {
        try gitItem(user: "carol", secret: "pw-carol")
        for fields in [Self.gitQuery + "," + Self.libsecret, Self.gitQuery + #","account":"carol","attributes":{"protocol":"https","server":"h.example","port":null,"object":null,"user":"carol"}"#] {
            let answer = try resolve(fields)
            #expect(found(answer)?["found"] as? String == "foreign", "\(answer)")
            #expect(item(answer)?["service"] as? String == "org.git.Password" && item(answer)?["account"] as? String == "carol")
            #expect(item(answer)?["secret"] as? String == "pw-carol" && (item(answer)?["attributes"] as? [String: String])?["server"] == "h.example")
        }
        // The same as foreign_get answers and records.
        let direct = try send(#"{"op":"foreign_get","schema":"git","attributes":{"protocol":"https","server":"h.example","port":null,"object":null,"user":"carol"}}"#)
        #expect(NSDictionary(dictionary: item(direct) ?? [:]) == NSDictionary(dictionary: item(try resolve(Self.gitQuery + "," + Self.libsecret)) ?? [:]))
        let last = try records().suffix(2)
        #expect(last.count == 2 && last.first == last.last && last.first?.op == "foreign_get" && last.first?.result == "ok")
        // Not for another port or path.
        #expect(found(try resolve(Self.gitQuery + #","attributes":{"protocol":"https","server":"h.example","port":"8443","object":null}"#))?["found"] as? String == "none")
        // vault's own item comes first.
        try set("git:https://h.example", "alice", "pw-alice")
        let own = try resolve(Self.gitQuery + "," + Self.libsecret)
        #expect(found(own)?["found"] as? String == "item" && item(own)?["secret"] as? String == "pw-alice")
    }

    @Test func severalCredentialsWithoutAUsernameAreAmbiguousAndNothingIsRead() throws {
        try set("git:https://h.example", "alice", "a")
        try set("git:https://h.example", "bob", "b")
        let own = try resolve(Self.gitQuery + "," + Self.libsecret)
        #expect(found(own)?["found"] as? String == "ambiguous" && found(own)?["among"] as? String == "item" && found(own)?["count"] as? Int == 2)
        #expect(item(own) == nil)
        #expect(found(try resolve(Self.gitQuery + #","account":"bob""#))?["found"] as? String == "item")

        try gitItem(user: "carol", secret: "c")
        try gitItem(user: "dave", secret: "d")
        let theirs = try resolve(#""helper":"git","service":"git:https://other.example","attributes":{"protocol":"https","server":"h.example","port":null,"object":null}"#)
        #expect(found(theirs)?["found"] as? String == "ambiguous" && found(theirs)?["among"] as? String == "foreign" && found(theirs)?["count"] as? Int == 2)
        #expect(try !records().contains { $0.op == "foreign_get" }, "no other helper's item was read")
    }

    @Test func nothingFoundIsNone() throws {
        for fields in [Self.gitQuery, Self.gitQuery + "," + Self.libsecret, Self.gitQuery + #","account":"nobody","# + Self.libsecret] {
            let answer = try resolve(fields)
            #expect(found(answer)?["found"] as? String == "none" && item(answer) == nil && answer["ok"] as? Bool == true, "\(answer)")
        }
        // An item of another kind under the name is no credential.
        _ = try send(#"{"op":"import_session","service":"git:https://h.example","account":"s","session":"{\"access_token\":\"t\",\"token_endpoint\":\"https://auth.example.com/token\"}"}"#)
        #expect(found(try resolve(Self.gitQuery + #","account":"s""#))?["found"] as? String == "none")
    }

    @Test func dockerPrefersDockerCredentialSecretservicesItemThenTheFirstOfVaultsOwn() throws {
        let docker = #""helper":"docker","service":"docker:https://r.example","attributes":{"server":"https://r.example","docker_cli":"1"}"#
        try set("docker:https://r.example", "zed", "own-z")
        try set("docker:https://r.example", "amy", "own-a")
        var answer = try resolve(docker)
        #expect(found(answer)?["found"] as? String == "item" && item(answer)?["account"] as? String == "amy" && item(answer)?["secret"] as? String == "own-a")
        try foreignItem(["xdg:schema": "io.docker.Credentials", "label": "Docker Credentials", "server": "https://r.example", "username": "u", "docker_cli": "1"], secret: "theirs")
        answer = try resolve(docker)
        #expect(found(answer)?["found"] as? String == "foreign" && item(answer)?["account"] as? String == "u" && item(answer)?["secret"] as? String == "theirs")
    }

    @Test func aLinkedSessionIsAnsweredWithItsTokenAlone() throws {
        try set("git:https://h.example", "alice", "pw-alice")
        _ = try send(#"{"op":"import_session","service":"forge","account":"me","session":"{\"access_token\":\"tok-1\",\"token_type\":\"Bearer\",\"token_endpoint\":\"https://auth.example.com/token\"}"}"#)
        let answer = try resolve(Self.gitQuery + #","account":"alice","session_service":"forge""#)
        #expect(found(answer)?["found"] as? String == "token" && item(answer) == nil)
        let token = result(answer)?["token"] as? [String: Any]
        #expect(token?["access_token"] as? String == "tok-1" && token?["account"] as? String == "me")
        #expect(try records().last?.op == "token" && records().last?.service == "forge")
        // As token answers a session that is not there.
        let missing = try resolve(Self.gitQuery + #","session_service":"nowhere""#)
        let direct = try send(#"{"op":"token","service":"nowhere"}"#)
        #expect(error(missing)?["code"] as? String == "not_found" && error(missing)?["message"] as? String == error(direct)?["message"] as? String)
    }

    @Test func aGuardedItemIsRefusedWithTheSameAnswerAndRecordAsGet() throws {
        try set("git:https://h.example", "alice", "pw-alice")
        _ = try dispatcher.items.allow(try ItemKey(service: "git:https://h.example", account: "alice"), program: "/usr/bin/env", by: ItemRequest(.unknown))
        let viaGet = try send(#"{"op":"get","service":"git:https://h.example","account":"alice"}"#)
        let viaResolve = try resolve(Self.gitQuery + #","account":"alice","# + Self.libsecret)
        #expect(error(viaResolve)?["code"] as? String == "denied")
        #expect(error(viaResolve)?["message"] as? String == error(viaGet)?["message"] as? String)
        let last = try records().suffix(2)
        #expect(last.count == 2 && last.first == last.last, "\(last)")
        #expect(last.last?.op == "get" && last.last?.result == "denied" && last.last?.account == "alice")
    }

    @Test func anAllowedProgramIsGivenTheItemWithTheSameGrantAsGetAndOthersAreRefused() throws {
        try set("git:https://h.example", "alice", "pw-alice")
        let key = try ItemKey(service: "git:https://h.example", account: "alice")
        _ = try dispatcher.items.allow(key, program: "/usr/bin/env", by: ItemRequest(.unknown))
        let query = try CredentialQuery(helper: .git, service: "git:https://h.example", account: "alice", foreign: nil)
        guard case .item(let item) = try dispatcher.items.resolveCredential(query, by: ItemRequest(ItemServiceTests.allowed)) else {
            Issue.record("the allowed program was not given the item")
            return
        }
        #expect(item.secret == SecretBytes(utf8: "pw-alice"))
        _ = try dispatcher.items.read(key, by: ItemRequest(ItemServiceTests.allowed), in: .everyKind)
        var last = try records().suffix(2)
        #expect(last.count == 2 && last.first == last.last && last.last?.grant == "rule" && last.last?.exe == ItemServiceTests.allowed.executable)
        #expect(throws: VaultError.self) { try dispatcher.items.resolveCredential(query, by: ItemRequest(ItemServiceTests.other)) }
        #expect(throws: VaultError.self) { try dispatcher.items.read(key, by: ItemRequest(ItemServiceTests.other), in: .everyKind) }
        last = try records().suffix(2)
        #expect(last.first == last.last && last.last?.result == "denied" && last.last?.pid == ItemServiceTests.other.pid)
    }

    @Test func aLockedVaultIsExplainedAsForGet() throws {
        try set("git:https://h.example", "alice", "pw-alice")
        _ = try send(#"{"op":"lock"}"#)
        let viaGet = try send(#"{"op":"get","service":"git:https://h.example","account":"alice"}"#)
        for fields in [Self.gitQuery + #","account":"alice""#, Self.gitQuery + "," + Self.libsecret] {
            let answer = try resolve(fields)
            #expect(error(answer)?["code"] as? String == "locked" && error(answer)?["message"] as? String == error(viaGet)?["message"] as? String, "\(answer)")
        }
    }

    @Test func badRequestsAreRefusedNamingWhatToFix() throws {
        for (fields, message) in [
            (#""helper":"pass","service":"s""#, "unknown helper 'pass'; known: git, docker"),
            (#""helper":"git""#, "missing field 'service'"),
            (#""helper":"git","service":"vault.access""#, "vault's own"),
            (#""helper":"git","service":"s","account":"a\u0007""#, "control characters"),
            (#""helper":"git","service":"s","attributes":{"service":"x"}"#, "not an attribute of git items"),
        ] {
            let answer = try resolve(fields)
            #expect(error(answer)?["code"] as? String == "bad_request" && (error(answer)?["message"] as? String)?.contains(message) == true, "\(fields): \(answer)")
        }
        // The other helper's attributes are checked when they are needed.
        try set("git:https://h.example", "alice", "pw")
        let c1 = #","attributes":{"protocol":"https","server":"h.example\u009b"}"#
        #expect(found(try resolve(Self.gitQuery + #","account":"alice""# + c1))?["found"] as? String == "item")
        #expect(error(try resolve(Self.gitQuery + #","account":"bob""# + c1))?["code"] as? String == "bad_request")
    }
}
