import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultStores
import VaultTestSupport

/// The dispatcher in-process, over the in-memory store: every operation, its errors and codes.
@Suite struct DispatcherTests {
    let directory = TemporaryDirectory(prefix: "vault-daemon")
    let log = RecordingLogHandler()
    let dispatcher: RequestDispatcher

    init() {
        dispatcher = .inMemory(in: directory, log: log)
    }

    /// Sends one JSON line; returns the decoded answer as a JSON object.
    func send(_ json: String) throws -> [String: Any] {
        var line = MessageCodec.encode(dispatcher.handle(line: Array(json.utf8)))
        #expect(line.removeLast() == 10)
        return try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
    }

    func errorCode(_ answer: [String: Any]) -> String? { (answer["error"] as? [String: Any])?["code"] as? String }
    func result(_ answer: [String: Any]) -> [String: Any]? { answer["result"] as? [String: Any] }

    @Test func itemsAreStoredListedReadAndDeleted() throws {
        #expect(result(try send(#"{"id":1,"op":"add","service":"s","account":"a","secret":"one","label":"L"}"#)) != nil)
        #expect(errorCode(try send(#"{"op":"add","service":"s","account":"a","secret":"two"}"#)) == "duplicate")
        #expect(result(try send(#"{"op":"set","service":"s","account":"a","secret_b64":"/wA="}"#)) != nil)
        let got = try send(#"{"id":"g","op":"get","service":"s","account":"a"}"#)
        #expect(got["id"] as? String == "g")
        let item = result(got)?["item"] as? [String: Any]
        #expect(item?["secret_b64"] as? String == "/wA=" && item?["label"] as? String == "L" && item?["secret"] == nil)
        let listed = result(try send(#"{"op":"list","service":"s"}"#))?["items"] as? [[String: Any]]
        #expect(listed?.count == 1 && listed?.first?["secret"] == nil && listed?.first?["secret_b64"] == nil)
        #expect(result(try send(#"{"op":"delete","service":"s","account":"a"}"#)) != nil)
        #expect(errorCode(try send(#"{"op":"get","service":"s","account":"a"}"#)) == "not_found")
        #expect(errorCode(try send(#"{"op":"delete","service":"s","account":"a"}"#)) == "not_found")
    }

    @Test func badRequestsAreNamedAndKeepTheirID() throws {
        let cases: [(String, String)] = [
            (#"{"id":5,"op":"get","service":"s"}"#, "missing field 'account'"),
            (#"{"id":5,"op":"add","service":"s","account":"a"}"#, "missing field 'secret'"),
            (#"{"id":5,"op":"get","service":"s","account":""}"#, "account must not be empty"),
            (#"{"id":5,"op":"get","service":"s\u0007","account":"a"}"#, "control characters"),
            (#"{"id":5,"op":"teleport"}"#, "unknown op 'teleport'"),
            (#"{"id":5,"op":"list","service":7}"#, "field 'service' must be a string"),
            (#"{"id":5,"op":"login","provider":"ldap","password":"p"}"#, "provider 'ldap' is not supported"),
            (#"{"id":5,"op":"migrate","to":"tape"}"#, "unknown store 'tape'"),
        ]
        for (json, message) in cases {
            let answer = try send(json)
            #expect(answer["id"] as? Int == 5, "\(json)")
            #expect(answer["ok"] as? Bool == false && errorCode(answer) == "bad_request", "\(json)")
            #expect(((answer["error"] as? [String: Any])?["message"] as? String)?.contains(message) == true, "\(json): \(answer)")
        }
        let garbage = try send("{not json")
        #expect(garbage["id"] is NSNull && errorCode(garbage) == "bad_request")
        #expect(errorCode(try send(#"{"op":"add","service":"s","account":"a","secret":"\#(String(repeating: "x", count: 65 * 1024))"}"#)) == "too_large")
    }

    @Test func lockingStatusAndTheStoresOwnPassphrase() throws {
        let status = result(try send(#"{"op":"status"}"#))?["status"] as? [String: Any]
        #expect(status?["backend"] as? String == "memory" && status?["locked"] as? Bool == false && status?["backend_reason"] as? String == "a test")
        #expect((result(try send(#"{"op":"lock"}"#))?["status"] as? [String: Any])?["locked"] as? Bool == true)
        #expect(errorCode(try send(#"{"op":"get","service":"s","account":"a"}"#)) == "locked")
        #expect((result(try send(#"{"op":"unlock"}"#))?["status"] as? [String: Any])?["locked"] as? Bool == false)
        // The in-memory store has no passphrase of vault's.
        #expect(errorCode(try send(#"{"op":"change_passphrase","passphrase":"a","new_passphrase":"b"}"#)) == "bad_request")
        #expect(errorCode(try send(#"{"op":"migrate","to":"memory"}"#)) == "bad_request")
    }

    @Test func migratingToANewFileStoreAsksForANewPassphraseThenMovesEverything() throws {
        _ = try send(#"{"op":"set","service":"m","account":"a","secret":"moved"}"#)
        let asked = try send(#"{"op":"migrate","to":"file"}"#)
        #expect(errorCode(asked) == "new_passphrase_required")
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/vault.db")))
        let report = result(try send(#"{"op":"migrate","to":"file","passphrase":"new file passphrase"}"#))?["migration"] as? [String: Any]
        #expect(report?["from"] as? String == "memory" && report?["to"] as? String == "file" && report?["copied"] as? Int == 1 && report?["removed"] as? Int == 1)
        let item = result(try send(#"{"op":"get","service":"m","account":"a"}"#))?["item"] as? [String: Any]
        #expect(item?["secret"] as? String == "moved")
        #expect((result(try send(#"{"op":"status"}"#))?["status"] as? [String: Any])?["backend"] as? String == "file")
        // The file store has a passphrase: a wrong current one changes nothing.
        #expect(errorCode(try send(#"{"op":"change_passphrase","passphrase":"wrong","new_passphrase":"b"}"#)) == "wrong_passphrase")
        #expect(result(try send(#"{"op":"change_passphrase","passphrase":"new file passphrase","new_passphrase":"b"}"#)) != nil)
    }

    @Test func sessionsAreImportedServedDescribedAndSignedOut() throws {
        let session = #"{\"access_token\":\"imported-token\",\"token_type\":\"Bearer\",\"token_endpoint\":\"https://auth.example.com/token\"}"#
        #expect(result(try send(#"{"op":"import_session","service":"api","account":"me","session":"\#(session)"}"#)) != nil)
        let token = result(try send(#"{"op":"token","service":"api"}"#))?["token"] as? [String: Any]
        #expect(token?["access_token"] as? String == "imported-token" && token?["account"] as? String == "me")
        let listed = (result(try send(#"{"op":"list"}"#))?["items"] as? [[String: Any]])?.first
        #expect(listed?["kind"] as? String == "session" && (listed?["session"] as? [String: Any])?["provider"] as? String == "oauth2")
        #expect(errorCode(try send(#"{"op":"token","service":"nothing"}"#)) == "not_found")
        _ = try send(#"{"op":"set","service":"plain","account":"a","secret":"x"}"#)
        #expect(errorCode(try send(#"{"op":"token","service":"plain","account":"a"}"#)) == "bad_request")
        #expect(errorCode(try send(#"{"op":"import_session","service":"api","account":"me","session":"[]"}"#)) == "bad_request")
        #expect(errorCode(try send(#"{"op":"signup","provider":"oauth2","token_endpoint":"https://t","username":"u","password":"p","service":"s"}"#)) == "bad_request")
        #expect(errorCode(try send(#"{"op":"login","provider":"oauth2","token_endpoint":"http://example.com/t","username":"u","password":"p","service":"s"}"#)) == "bad_request")
        // No revocation endpoint is known: signing out forgets the session here.
        #expect(result(try send(#"{"op":"logout","service":"api"}"#))?["message"] as? String
            == "signed out of api (me): removed here; the provider has no sign-out to ask for")
        #expect(errorCode(try send(#"{"op":"token","service":"api"}"#)) == "not_found")
    }

    @Test func doctorReportsBothStores() throws {
        let doctor = result(try send(#"{"op":"doctor"}"#))?["doctor"] as? [String: Any]
        #expect(doctor?["selected"] as? String == "memory")
        let stores = Set(((doctor?["checks"] as? [[String: Any]]) ?? []).compactMap { $0["store"] as? String })
        #expect(stores == ["secret-service", "file"])
    }

    @Test func noSecretReachesTheLog() throws {
        _ = try send(#"{"op":"set","service":"s","account":"a","secret":"SECRET-MARKER-1"}"#)
        _ = try send(#"{"op":"get","service":"s","account":"a"}"#)
        _ = try send(#"{"op":"unlock","passphrase":"SECRET-MARKER-2"}"#)
        _ = try send(#"{"op":"migrate","to":"file","passphrase":"SECRET-MARKER-3"}"#)
        _ = try send(#"{"op":"login","provider":"oauth2","token_endpoint":"http://127.0.0.1:1/t","username":"u","password":"SECRET-MARKER-4","service":"s"}"#)
        #expect(!log.recorded.isEmpty)
        for line in log.recorded { #expect(!line.contains("SECRET-MARKER"), "\(line)") }
    }

    func isLocked() throws -> Bool {
        (result(try send(#"{"op":"status"}"#))?["status"] as? [String: Any])?["locked"] as? Bool == true
    }

    @Test func onlyRequestsThatTouchItemsPostponeAutoLock() throws {
        _ = try send(#"{"op":"set","service":"s","account":"a","secret":"x"}"#)
        let store = dispatcher.store, logger = Logger(handler: log)
        // A client's get just now: not idle yet.
        _ = try send(#"{"op":"get","service":"s","account":"a"}"#)
        store.lockIfIdle(for: 0.25, logger: logger)
        #expect(try !isLocked())
        // status (isLocked sends one), doctor and background refresh after the idle time has
        // passed: none of them counts as use, so the store still locks.
        usleep(300_000)
        _ = try isLocked()
        _ = try send(#"{"op":"doctor"}"#)
        dispatcher.refreshSessions(expiringWithin: 3600)
        store.lockIfIdle(for: 0.25, logger: logger)
        #expect(try isLocked())
        #expect(log.recorded.contains { $0.contains("without use") })
    }
}
