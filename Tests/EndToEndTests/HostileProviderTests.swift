import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import VaultCore

/// Tests/Fixtures/hostile_provider.py: a provider that answers the way a buggy or malicious one
/// would, plus a second origin that records any request (redirects point there).
final class HostileProvider: @unchecked Sendable {
    let fixture: PythonFixture
    var base: String { fixture.base }
    var otherOrigin: String { "http://127.0.0.1:\(fixture.info["other_port"] as? Int ?? 0)" }

    init(_ vault: VaultHarness) throws {
        fixture = try PythonFixture("hostile_provider.py", in: vault)
    }

    /// Sets how the next answers look (see the fixture's docstring).
    func mode(_ json: String) {
        fixture.post("/__mode", body: json)
    }

    func fetch(_ url: String) -> [String: Any] {
        guard let data = try? Data(contentsOf: URL(string: url)!) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// Requests the second origin received: redirects must never reach it.
    var requestsSeenElsewhere: Int { fetch(otherOrigin + "/__seen")["requests"] as? Int ?? -1 }
    var log: [String: Any] { fetch(base + "/__log") }
}

@Suite(.serialized) struct HostileProviderTests {
    static let accessToken = "AT-original-access"
    static let refreshToken = "RT-original-refresh"

    /// A vault with an OAuth 2.0 session (`api`/`alice`) at the hostile provider, valid for an
    /// hour, and its vaultd's pid.
    func setUp(_ vault: VaultHarness, _ provider: HostileProvider, supabase: Bool = false) throws -> Int32 {
        vault.environment["VAULT_HTTP_TIMEOUT"] = "5"
        let session = supabase
            ? #"{"provider":"supabase","project_url":"\#(provider.base)","api_key":"anon-key","access_token":"\#(Self.accessToken)","refresh_token":"\#(Self.refreshToken)","expires_in":3600}"#
            : #"{"token_endpoint":"\#(provider.base)/token","revocation_endpoint":"\#(provider.base)/revoke","client_id":"cli","client_secret":"client-secret-value","access_token":"\#(Self.accessToken)","refresh_token":"\#(Self.refreshToken)","expires_in":3600}"#
        let imported = try vault.ctl(["session", "import", "api", "alice"], input: Array(session.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        return vault.daemonPIDs().first ?? -1
    }

    func stored(_ vault: VaultHarness) throws -> [String: Any] {
        let item = try vault.ctl("get", "api", "alice")
        return (try? JSONSerialization.jsonObject(with: Data(item.stdout)) as? [String: Any]) ?? ["get failed": item.stderr]
    }

    /// vaultd (the same process) still serves, the session is as imported, and so it is after a
    /// restart; list and status work both times.
    func expectIntact(_ vault: VaultHarness, pid: Int32, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(vault.daemonPIDs() == [pid], "vaultd must survive \(what)", sourceLocation: sourceLocation)
        for round in ["before", "after"] {
            let session = try stored(vault)
            #expect(session["access_token"] as? String == Self.accessToken && session["refresh_token"] as? String == Self.refreshToken,
                    "the session must be intact \(round) a restart, after \(what): \(session.keys.sorted())", sourceLocation: sourceLocation)
            #expect(session["needs_sign_in"] as? Bool == false, "not marked, after \(what)", sourceLocation: sourceLocation)
            let list = try vault.ctl("list")
            #expect(list.status == 0 && list.text.contains("expires "), "list \(round) a restart, after \(what): \(list.stderr)", sourceLocation: sourceLocation)
            #expect(try vault.ctl("status").status == 0, sourceLocation: sourceLocation)
            let token = try vault.ctl("token", "api", "--min-ttl", "0")
            #expect(token.status == 0 && token.text == Self.accessToken + "\n", "token \(round) a restart, after \(what): \(token.stderr)", sourceLocation: sourceLocation)
            vault.stopDaemons()
        }
    }

    /// vaultd's peak resident memory, in KiB (VmHWM in /proc/PID/status).
    func peakMemory(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// Numbers a Double or Int64 conversion would crash on, and tokens a shell would run.
    @Test(arguments: [
        #"{"expires_in":"1e20"}"#, #"{"expires_in":"inf"}"#, #"{"expires_in":"nan"}"#, #"{"expires_in":-1e300}"#,
        #"{"expires_in":1e20}"#, #"{"expires_in":"-5"}"#, #"{"expires_at":1e300}"#, #"{"expires_in":true}"#,
        #"{"access_token":"x; echo INJECTED 1>&2; #"}"#, #"{"refresh_token":"rt\u001b]0;pwned\u0007"}"#,
        #"{"token_type":"Bearer\r\nX-Injected: 1"}"#, #"{"access_token":""}"#,
    ])
    func aBadGrantIsAnErrorNamingTheFieldAndTheSessionIsKept(fields: String) throws {
        let vault = VaultHarness()
        let provider = try HostileProvider(vault)
        let pid = try setUp(vault, provider)
        provider.mode(#"{"mode":"grant","fields":\#(fields)}"#)
        // An hour left, two wanted: vaultd refreshes, gets the bad answer, serves what it has.
        let token = try vault.ctl("token", "api", "--min-ttl", "7200")
        #expect(!token.text.contains("INJECTED") && !token.stderr.contains("INJECTED") && !token.stderr.contains("\u{1b}"))
        #expect(token.text == Self.accessToken + "\n" || token.status != 0, "\(token.text)")
        let named = fields.split(separator: "\"")[1]
        #expect(vault.daemonLogText.contains("'\(named)'"), "the log names the field: \(named)")
        try expectIntact(vault, pid: pid, fields)
    }

    /// 400 MiB answers, with and without Content-Length: refused at about 1 MiB, memory bounded.
    @Test(arguments: [true, false]) func aHugeAnswerIsRefusedWithoutHoldingIt(withLength: Bool) throws {
        let vault = VaultHarness()
        let provider = try HostileProvider(vault)
        let pid = try setUp(vault, provider)
        let before = peakMemory(pid)
        provider.mode(#"{"mode":"huge","length":\#(withLength)}"#)
        let token = try vault.ctl("token", "api", "--min-ttl", "7200")
        let after = peakMemory(pid)
        #expect(after - before < 64 * 1024, "vaultd's peak memory grew from \(before) KiB to \(after) KiB")
        #expect(token.status == 0 && token.text == Self.accessToken + "\n", "\(token.stderr)")
        #expect(vault.daemonLogText.contains("larger than 1024 KiB"))
        try expectIntact(vault, pid: pid, "a 400 MiB answer")
    }

    /// A 307 to another origin is not followed: the credentials (HTTP Basic client secret, the
    /// refresh token, Supabase's access token) never reach it.
    @Test(arguments: [false, true]) func redirectsAreNotFollowed(supabase: Bool) throws {
        let vault = VaultHarness()
        let provider = try HostileProvider(vault)
        let pid = try setUp(vault, provider, supabase: supabase)
        provider.mode(#"{"mode":"redirect"}"#)
        let token = try vault.ctl("token", "api", "--min-ttl", "7200")
        #expect(token.status == 0, "\(token.stderr)")
        let logout = try vault.ctl("logout", "api")
        #expect(logout.status != 0 && logout.stderr.contains("redirect"), "\(logout.stderr)")
        #expect(provider.requestsSeenElsewhere == 0, "the second origin must see no request")
        #expect(vault.daemonLogText.contains("HTTP 307, a redirect"))
        try expectIntact(vault, pid: pid, "a redirect")
    }

    /// A proxy's 403 with a JSON body is no "sign in again" (Supabase's documented codes are).
    @Test func aProxysForbiddenIsNotASignInAgain() throws {
        let vault = VaultHarness()
        let provider = try HostileProvider(vault)
        let pid = try setUp(vault, provider, supabase: true)
        provider.mode(#"{"mode":"raw","status":403,"body":"{\"message\":\"Forbidden by the corporate proxy\"}"}"#)
        #expect(try vault.ctl("token", "api", "--min-ttl", "7200").status == 0)
        provider.mode(#"{"mode":"raw","status":200,"body":"<html>\u001b]0;owned\u0007 sign in</html>","content_type":"text/html"}"#)
        #expect(try vault.ctl("token", "api", "--min-ttl", "7200").status == 0)
        try expectIntact(vault, pid: pid, "a proxy's 403 and an HTML page")
        // The documented code does mark it.
        provider.mode(#"{"mode":"raw","status":400,"body":"{\"code\":\"refresh_token_not_found\",\"message\":\"gone\"}"}"#)
        let marked = try vault.ctl("token", "api", "--min-ttl", "7200")
        #expect(marked.status == 4 && marked.stderr.contains("refresh_token_not_found"), "\(marked.stderr)")
    }

    /// `"interval": 5000` (and other unusable device answers) is an error naming the field, not
    /// a crash of vaultctl.
    @Test func unusableDeviceCodesAreAnErrorNamingTheField() throws {
        let vault = VaultHarness()
        let provider = try HostileProvider(vault)
        let pid = try setUp(vault, provider)
        for fields in [#"{"interval":5000}"#, #"{"expires_in":1e20}"#, #"{"user_code":"AB\u001b]0;pwned\u0007"}"#] {
            provider.mode(#"{"mode":"device","fields":\#(fields)}"#)
            let login = try vault.ctl(["login", "oauth2", "--device", "--device-endpoint", provider.base + "/device",
                                       "--token-endpoint", provider.base + "/token", "--client-id", "cli", "--service", "dev"])
            let named = fields.split(separator: "\"")[1]
            #expect(login.stderr.contains("'\(named)'") && !login.stderr.contains("\u{1b}"), "\(login.status): \(login.stderr)")
        }
        try expectIntact(vault, pid: pid, "unusable device codes")
    }

    /// Revocation that does not confirm (401 invalid_client, a page that is not JSON) keeps the
    /// session and fails; `--local` forgets it anyway; a 200 removes it.
    @Test func logoutKeepsTheSessionUnlessTheServerConfirms() throws {
        let vault = VaultHarness()
        let provider = try HostileProvider(vault)
        let pid = try setUp(vault, provider)
        for answer in [#""status":401,"body":"{\"error\":\"invalid_client\"}","content_type":"application/json""#,
                       #""status":403,"body":"<html>Forbidden</html>""#, #""status":200,"body":"<html>Welcome to the portal</html>""#] {
            provider.mode(#"{"mode":"revoke",\#(answer)}"#)
            let logout = try vault.ctl("logout", "api")
            #expect(logout.status != 0 && logout.stderr.contains("kept") && logout.stderr.contains("--local"), "\(logout.stderr)")
            #expect(try stored(vault)["refresh_token"] as? String == Self.refreshToken)
        }
        try expectIntact(vault, pid: pid, "unconfirmed revocations")
        provider.mode(#"{"mode":"revoke","status":200}"#)
        let confirmed = try vault.ctl("logout", "api")
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(try vault.ctl("get", "api", "alice").status == 3)

        _ = try setUp(vault, provider)
        provider.mode(#"{"mode":"revoke","status":401,"body":"{\"error\":\"invalid_client\"}","content_type":"application/json"}"#)
        let forgotten = try vault.ctl("logout", "api", "--local")
        #expect(forgotten.status == 0 && forgotten.stderr.contains("here only"), "\(forgotten.stderr)")
        #expect(try vault.ctl("get", "api", "alice").status == 3)
    }

    /// Mutated valid answers to refresh, sign-in and device requests for VAULT_PROVIDER_FUZZ_SECONDS
    /// (default 60): vaultd never dies, the session is intact, rotated to a token the provider
    /// sent, or marked after a documented refusal, and no token reaches vaultd's log.
    @Test func providerFuzz() throws {
        let seconds = Double(ProcessInfo.processInfo.environment["VAULT_PROVIDER_FUZZ_SECONDS"] ?? "") ?? 60
        let seed = Int(ProcessInfo.processInfo.environment["VAULT_PROVIDER_FUZZ_SEED"] ?? "") ?? Int.random(in: 1...1_000_000)
        let vault = VaultHarness()
        let provider = try HostileProvider(vault)
        vault.environment["VAULT_HTTP_TIMEOUT"] = "2"
        let pid = try setUp(vault, provider)
        provider.mode(#"{"mode":"fuzz","seed":\#(seed)}"#)
        var previous = Self.refreshToken
        let deadline = Date().addingTimeInterval(seconds)
        var round = 0
        while Date() < deadline {
            switch round % 3 {
            case 0:
                _ = try vault.ctl("token", "api", "--min-ttl", "7200")
            case 1:
                _ = try vault.ctl(["login", "oauth2", "--token-endpoint", provider.base + "/token", "--client-id", "cli",
                                   "--username", "bob", "--service", "other"], input: Array("bob-password\n".utf8))
            default:
                let connection = try RawConnection(path: vault.socketPath)
                _ = try connection.request(#"{"id":1,"method":"device_start","params":{"device_endpoint":"\#(provider.base)/device","client_id":"cli"}}"#)
                connection.close()
            }
            round += 1
            guard vault.daemonPIDs() == [pid] else {
                Issue.record("vaultd died in round \(round) (seed \(seed))")
                break
            }
            let session = try stored(vault)
            let refresh = session["refresh_token"] as? String ?? "(none)"
            let issued = provider.log["issued"] as? [String] ?? []
            #expect(refresh == previous || issued.contains(refresh), "round \(round), seed \(seed): a refresh token the provider never sent")
            if session["needs_sign_in"] as? Bool == true {
                #expect((provider.log["rejected"] as? Int ?? 0) > 0, "marked without a documented refusal (seed \(seed))")
                let again = #"{"token_endpoint":"\#(provider.base)/token","client_id":"cli","access_token":"\#(Self.accessToken)","refresh_token":"\#(Self.refreshToken)","expires_in":3600}"#
                #expect(try vault.ctl(["session", "import", "api", "alice"], input: Array(again.utf8)).status == 0)
                previous = Self.refreshToken
            } else {
                previous = refresh
            }
        }
        let answers = provider.log["answers"] as? Int ?? 0
        print("provider fuzz: \(answers) answers in \(round) rounds, seed \(seed)")
        #expect(answers > 0)
        let log = vault.daemonLogText
        #expect(!log.contains("AT-") && !log.contains("RT-") && !log.contains("bob-password") && !log.contains("client-secret-value"),
                "no token or password in vaultd's log (seed \(seed))")
        #expect(!log.contains("\u{1b}"), "no escape sequence in vaultd's log (seed \(seed))")
        #expect(provider.requestsSeenElsewhere == 0)
    }
}

extension VaultHarness {
    /// vaultd's log (the autostarted daemon's), as text.
    var daemonLogText: String { (try? String(contentsOfFile: daemonLog, encoding: .utf8)) ?? "" }
}
