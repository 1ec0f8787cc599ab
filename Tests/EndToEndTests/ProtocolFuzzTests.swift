import Foundation
import Synchronization
import Testing
import VaultClient
import VaultCore
import VaultSystem

/// A bounded protocol fuzzer against the built vaultd: valid requests of every operation, mutated
/// (bytes flipped, inserted, deleted; values swapped for other JSON types, huge numbers, deep
/// nesting, long strings; lines spliced and truncated), random bytes, and valid lines split across
/// writes or pipelined (their answers must echo their ids), sent from many
/// connections at once. vaultd must never die, must answer every well-framed line with one valid
/// response (and an over-long line with `too_large` before closing), and must keep serving an
/// honest client throughout. `VAULT_FUZZ_SECONDS` (default 60) sets how long it runs.
@Suite struct ProtocolFuzzTests {
    static let seconds = ProcessInfo.processInfo.environment["VAULT_FUZZ_SECONDS"].flatMap(Double.init) ?? 60
    static let errorCodes = Set(VaultErrorCode.allCases.map(\.rawValue))

    /// One valid request line per operation, none of which reaches beyond this machine (sign-in
    /// endpoints are 127.0.0.1:1, where nothing listens) or changes the passphrase.
    static let seeds: [String] = [
        #"{"id":1,"op":"status"}"#,
        #"{"id":2,"op":"set","service":"fuzz","account":"a","secret":"value","label":"L","comment":"C"}"#,
        #"{"id":3,"op":"add","service":"fuzz","account":"b","secret_b64":"AAEC/w=="}"#,
        #"{"id":"g","op":"get","service":"fuzz","account":"a"}"#,
        #"{"id":5,"op":"delete","service":"fuzz","account":"b"}"#,
        #"{"id":6,"op":"list","service":"fuzz"}"#,
        #"{"id":7,"op":"lock"}"#,
        #"{"id":8,"op":"unlock","passphrase":"not the passphrase"}"#,
        #"{"id":9,"op":"change_passphrase","passphrase":"not the passphrase","new_passphrase":"x"}"#,
        #"{"id":10,"op":"migrate","to":"secret-service"}"#,
        #"{"id":11,"op":"doctor"}"#,
        #"{"id":12,"op":"token","service":"fuzz-session","min_ttl":5}"#,
        #"{"id":13,"op":"login","provider":"oauth2","token_endpoint":"http://127.0.0.1:1/token","username":"u","password":"p","service":"fuzz"}"#,
        #"{"id":14,"op":"signup","provider":"supabase","url":"http://127.0.0.1:1","api_key":"k","email":"a@b.co","password":"pw"}"#,
        #"{"id":15,"op":"reset_password","provider":"firebase","api_key":"k","url":"http://127.0.0.1:1","email":"a@b.co"}"#,
        #"{"id":16,"op":"logout","service":"fuzz-session"}"#,
        #"{"id":17,"op":"import_session","service":"fuzz-session","account":"me","session":"{\"access_token\":\"t\",\"token_endpoint\":\"http://127.0.0.1:1/t\",\"expires_in\":3600}"}"#,
        #"{"id":18,"op":"device_start","device_endpoint":"http://127.0.0.1:1/device","client_id":"c"}"#,
        #"{"id":19,"op":"device_poll","service":"fuzz","token_endpoint":"http://127.0.0.1:1/token","device_code":"d"}"#,
        #"{"id":20,"op":"foreign_list","schema":"docker","attributes":{"label":"Docker Credentials"}}"#,
        #"{"id":21,"op":"foreign_get","schema":"git","attributes":{"protocol":"https","server":"h.example","port":null}}"#,
        #"{"id":22,"op":"foreign_set","schema":"git","attributes":{"protocol":"https","server":"h.example","user":"u"},"label":"L","secret":"s"}"#,
        #"{"id":23,"op":"foreign_delete","schema":"docker","attributes":{"server":"https://r.example","docker_cli":"1"}}"#,
        #"{"id":24,"op":"resolve_credential","helper":"git","service":"git:https://h.example","attributes":{"protocol":"https","server":"h.example","port":null}}"#,
    ]

    static let replacements: [String] = [
        "null", "true", "0", "-1", "1e400", "-1e400", "18446744073709551616", "3.5", "\"\"", "[]", "{}",
        "\"\\u0000\"", "\"\\ud800\"", "\"\\n\\t\\u001b[2J\"", String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000),
        "\"" + String(repeating: "x", count: 70_000) + "\"", "\"status\"", "\"get\"", "\"file\"",
    ]

    /// What the fuzzer found wrong, and what it did.
    final class Tally: Sendable {
        let inputs = Atomic<Int>(0)
        let connections = Atomic<Int>(0)
        let problems = AdaptiveLock<[String]>([])

        func problem(_ text: String) {
            problems.withLock { if $0.count < 20 { $0.append(text) } }
        }
    }

    static func mutate(_ seed: String, _ random: inout SystemRandomNumberGenerator) -> [UInt8] {
        var bytes = Array(seed.utf8)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<9, using: &random) {
            case 0 where !bytes.isEmpty:  // flip a byte
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1:  // insert random bytes
                let insert = (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                bytes.insert(contentsOf: insert, at: Int.random(in: 0...bytes.count, using: &random))
            case 2 where bytes.count > 2:  // delete a range
                let start = Int.random(in: 0..<bytes.count - 1, using: &random)
                bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...10, using: &random)))
            case 3:  // a value becomes something else
                var text = String(decoding: bytes, as: UTF8.self)
                if let colon = text.indices.filter({ text[$0] == ":" }).randomElement(using: &random) {
                    let after = text.index(after: colon)
                    let end = text[after...].firstIndex(where: { $0 == "," || $0 == "}" }) ?? text.endIndex
                    text.replaceSubrange(after..<end, with: replacements.randomElement(using: &random)!)
                }
                bytes = Array(text.utf8)
            case 4:  // a duplicate or extra field
                let field = [#""op":"delete""#, #""service":"other""#, #""secret":"dup""#, #""id":{}"#, #""min_ttl":-1e308"#].randomElement(using: &random)!
                if let brace = bytes.firstIndex(of: UInt8(ascii: "{")) { bytes.insert(contentsOf: Array((field + ",").utf8), at: brace + 1) }
            case 5:  // splice with another request
                let other = Array(seeds.randomElement(using: &random)!.utf8)
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random))) + other.suffix(Int.random(in: 0...other.count, using: &random))
            case 6:  // truncate
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            case 7:  // an unknown op or a control character in a name
                bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "fuzz", with: ["fu\u{7}zz", "fuzz\u{1b}[31m", "", String(repeating: "f", count: 600)].randomElement(using: &random)!).utf8)
            default:  // random bytes instead
                bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
        }
        return bytes.filter { $0 != 10 }
    }

    /// True when vaultd answers nothing to this line (blank lines are ignored).
    static func isBlank(_ line: [UInt8]) -> Bool {
        var trimmed = line[...]
        if trimmed.last == 13 { trimmed = trimmed.dropLast() }
        return trimmed.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    static func checkAnswer(_ answer: [String: Any]?, to line: [UInt8], _ tally: Tally) {
        guard let answer else { return tally.problem("no answer to \(String(decoding: line.prefix(120), as: UTF8.self))") }
        if answer.ok {
            if !(answer["result"] is [String: Any]) || answer["error"] != nil { tally.problem("an ok answer without a result: \(answer)") }
        } else if let error = answer["error"] as? [String: Any], let code = error["code"] as? String, error["message"] is String {
            if !errorCodes.contains(code) { tally.problem("unknown error code \(code)") }
        } else {
            tally.problem("neither a result nor an error: \(answer)")
        }
    }

    /// Valid seeds sent as they are, in the ways a real client may: split across two writes, or
    /// two pipelined in one write. Each answer must carry its request's id.
    static func sendWhole(_ connection: RawConnection, _ tally: Tally, _ random: inout SystemRandomNumberGenerator) throws {
        let first = seeds.randomElement(using: &random)!, second = seeds.randomElement(using: &random)!
        func id(_ seed: String) -> String? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(seed.utf8)) as? [String: Any] else { return nil }
            return object["id"].map { "\($0)" }
        }
        var expected = [first]
        if Bool.random(using: &random) {
            let bytes = Array((first + "\n").utf8), cut = Int.random(in: 1..<bytes.count, using: &random)
            try connection.send(Array(bytes[..<cut]))
            usleep(UInt32.random(in: 0...2_000, using: &random))
            try connection.send(Array(bytes[cut...]))
        } else {
            try connection.send(first + "\n" + second + "\n")
            expected.append(second)
        }
        tally.inputs.add(expected.count, ordering: .relaxed)
        for seed in expected {
            let answer = try connection.receive()
            checkAnswer(answer, to: Array(seed.utf8), tally)
            if let answer, let sent = id(seed), answer["id"].map({ "\($0)" }) != sent {
                tally.problem("the answer to id \(sent) came back with id \(String(describing: answer["id"]))")
            }
        }
    }

    /// One fuzzing connection: a few lines, each answered before the next.
    static func fuzzOnce(socket: String, _ tally: Tally, _ random: inout SystemRandomNumberGenerator) {
        guard let connection = try? RawConnection(path: socket) else { return tally.problem("could not connect") }
        defer { connection.close() }
        tally.connections.add(1, ordering: .relaxed)
        for _ in 0..<Int.random(in: 1...12, using: &random) {
            let line = Int.random(in: 0..<200, using: &random) == 0
                ? [UInt8](repeating: UInt8(ascii: "a"), count: 300 * 1024)  // over the 256 KiB cap
                : mutate(seeds.randomElement(using: &random)!, &random)
            do {
                if Int.random(in: 0..<15, using: &random) == 0 {
                    try sendWhole(connection, tally, &random)
                    continue
                }
                tally.inputs.add(1, ordering: .relaxed)
                try connection.send(line + [10])
                if isBlank(line) { continue }
                let answer = try connection.receive()
                if line.count > 256 * 1024 {
                    if answer?.errorCode != "too_large" { tally.problem("an over-long line got \(String(describing: answer))") }
                    return
                }
                checkAnswer(answer, to: line, tally)
            } catch {
                return tally.problem("\(error) after \(String(decoding: line.prefix(120), as: UTF8.self))")
            }
        }
    }

    @Test(.timeLimit(.minutes(10))) func vaultdSurvivesMutatedAndRandomInputAndKeepsServing() throws {
        let vault = VaultHarness()
        let daemon = try vault.startDaemon(["--max-connections", "256"])
        let tally = Tally()
        let deadline = Date().addingTimeInterval(Self.seconds)
        let honest = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                var random = SystemRandomNumberGenerator()
                while Date() < deadline { Self.fuzzOnce(socket: vault.socketPath, tally, &random) }
            }
        }
        // The honest client: writes and reads its own item throughout, unlocking when a fuzzed
        // `lock` got through.
        let client = VaultConnection(socketPath: vault.socketPath, autostart: false)
        var honestFailures: [String] = []
        while Date() < deadline {
            let value = SecretBytes(utf8: "honest-\(honest.load(ordering: .relaxed))")
            do {
                try client.set(service: "honest", account: "client", secret: value)
                let read = try client.get(service: "honest", account: "client").secret
                if read != value { honestFailures.append("read back a different secret") }
                honest.add(1, ordering: .relaxed)
            } catch let error where error.code == .locked {
                try? client.unlock(passphrase: SecretBytes(utf8: vault.passphrase))
            } catch {
                honestFailures.append("\(error)")
            }
            usleep(20_000)
        }
        group.wait()
        let problems = tally.problems.withLock { $0 }
        print("protocol fuzz: \(tally.inputs.load(ordering: .relaxed)) inputs over \(tally.connections.load(ordering: .relaxed)) connections in \(Int(Self.seconds)) s; the honest client made \(honest.load(ordering: .relaxed)) round trips")
        #expect(daemon.isRunning, "vaultd died: \(vault.foregroundLog.suffix(2000))")
        #expect(problems.isEmpty, "\(problems)")
        #expect(honestFailures.isEmpty, "\(honestFailures.prefix(5))")
        #expect(honest.load(ordering: .relaxed) > 0)
    }
}
