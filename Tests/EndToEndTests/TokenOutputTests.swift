import Foundation
import Testing
import VaultCore

/// What vaultctl prints from provider-chosen text: `token`'s formats read back by a real shell
/// with hostile token values, and terminal text (user names, provider messages) without escapes.
@Suite struct TokenOutputTests {
    static let hostile = [
        "x; echo INJECTED 1>&2; #",
        "x'; echo INJECTED 1>&2; '",
        "$(echo INJECTED 1>&2)`echo INJECTED 1>&2`",
    ]

    /// Stores `fields` (a session: at least access_token) under service/account through
    /// `session import`; when import refuses them (it validates what it stores), writes the
    /// record straight into the vault file, as a compromised provider's answer could have.
    static func storeSession(_ vault: VaultHarness, _ service: String, _ account: String, _ fields: [String: Any]) throws {
        var session = fields
        session["token_endpoint"] = "https://auth.example.com/token"
        session["token_type"] = "Bearer"
        session["expires_in"] = 3600
        let json = try JSONSerialization.data(withJSONObject: session)
        if try vault.ctl(["session", "import", service, account], input: Array(json)).status == 0 { return }
        session["expires_in"] = nil
        session["expires_at"] = Date().timeIntervalSince1970 + 3600
        let record = try JSONSerialization.data(withJSONObject: session)
        let written = try vault.run([BuiltProducts.path("vault-store-tool"), "set-session", vault.vaultFile, service, account],
                                    input: Array(record) + [10])
        #expect(written.status == 0, "\(written.stderr)")
    }

    /// Runs `script` in bash with $VCTL naming vaultctl.
    static func shell(_ vault: VaultHarness, _ script: String) throws -> VaultHarness.Result {
        try vault.run(["/bin/bash", "-c", script], environment: ["VCTL": VaultHarness.vaultctl])
    }

    @Test func everyFormatReadBackByAShellGivesTheTokenAndRunsNothing() throws {
        let vault = VaultHarness()
        #expect(try vault.ctl("status").status == 0)
        for (index, value) in Self.hostile.enumerated() {
            try Self.storeSession(vault, "hostile", "a\(index)", ["access_token": value])
            let name = "hostile a\(index)"

            // vaultd checks a stored session's tokens when it loads one, so such a token is refused
            // with an error naming the field; were it ever served, the shell must get it back
            // exactly, as data. Either way nothing runs.
            func servedSafely(_ result: VaultHarness.Result) -> Bool {
                result.text == value || (result.text.isEmpty && result.stderr.contains("access_token"))
            }
            let env = try Self.shell(vault, #"eval "$("$VCTL" token \#(name) --format env)"; printf %s "$ACCESS_TOKEN""#)
            #expect(servedSafely(env), "env: \(env.text) \(env.stderr)")
            let renamed = try Self.shell(vault, #"eval "$("$VCTL" token \#(name) --format env --env-name API_TOKEN)"; printf %s "$API_TOKEN""#)
            #expect(servedSafely(renamed), "\(renamed.stderr)")
            let raw = try Self.shell(vault, #"token="$("$VCTL" token \#(name))"; printf %s "$token""#)
            #expect(servedSafely(raw), "\(raw.stderr)")
            let json = try Self.shell(vault, #""$VCTL" token \#(name) --format json"#)
            let served = json.stdout.isEmpty ? nil : try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any]
            #expect(json.stdout.isEmpty || served?["access_token"] as? String == value)
            // Formats read as HTTP refuse a token outside RFC 6750's set: an error, nothing printed.
            for format in ["header", "exec-credential"] {
                let refused = try Self.shell(vault, #"out="$("$VCTL" token \#(name) --format \#(format))"; code=$?; eval "$out" 2>/dev/null; printf '%s|%s' "$code" "$out""#)
                #expect(refused.text.hasSuffix("|") && !refused.text.hasPrefix("0|"), "\(format): \(refused.text)")
            }
            for result in [env, renamed, raw, json] { #expect(!result.stderr.contains("INJECTED"), "\(result.stderr)") }
        }

        // A token in the b64token set is printed as it is.
        try Self.storeSession(vault, "fine", "alice", ["access_token": "abc.DEF-123_~+/=="])
        #expect(try vault.ctl("token", "fine", "--format", "header").text == "Authorization: Bearer abc.DEF-123_~+/==\n")
        let credential = try JSONSerialization.jsonObject(with: Data(try vault.ctl("token", "fine", "--format", "exec-credential").stdout)) as? [String: Any]
        #expect((credential?["status"] as? [String: Any])?["token"] as? String == "abc.DEF-123_~+/==")
        #expect(try Self.shell(vault, #"eval "$("$VCTL" token fine --format env)"; printf %s "$ACCESS_TOKEN""#).text == "abc.DEF-123_~+/==")
    }

    /// A user name and email with escape sequences (an OSC retitle, a screen clear), shown by
    /// list and status, and a provider's error_description with them, shown by login: no ESC
    /// reaches the terminal, the readable rest does.
    @Test func providerTextReachesTheTerminalWithoutEscapes() throws {
        let vault = VaultHarness()
        try Self.storeSession(vault, "escapes", "alice", [
            "access_token": "plain-token", "email": "\u{1B}]0;pwned\u{07}alice\u{1B}[2J@example.com", "user_id": "\u{1B}[31muser\u{9B}2J",
        ])
        let outputs = [try vault.ctl("list"), try vault.ctl("list", "escapes"), try vault.ctl("status"), try vault.ctl("list", "--json")]
        for result in outputs {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stdout.contains(0x1B) && !result.stderr.unicodeScalars.contains("\u{1B}"), "\(result.text)")
            #expect(!result.text.unicodeScalars.contains("\u{9B}"))
        }
        #expect(outputs[0].text.contains("alice") && outputs[2].text.contains("alice"))
        // The raw token is printed exactly as stored, or (the stored user name is not acceptable
        // text) refused with a message that carries no escape either.
        let token = try vault.ctl("token", "escapes")
        #expect(token.text == "plain-token\n" || (token.status != 0 && !token.stderr.unicodeScalars.contains("\u{1B}")), "\(token.stderr)")

        let provider = try PythonFixture("slow_rejection_server.py", in: vault)
        let refused = try vault.ctl(["login", "oauth2", "--token-endpoint", provider.base + "/token", "--username", "bob", "--service", "esc"],
                                    input: Array("escape\n".utf8))
        #expect(refused.status != 0)
        #expect(!refused.stderr.unicodeScalars.contains("\u{1B}") && !refused.stdout.contains(0x1B), "\(refused.stderr)")
        #expect(refused.stderr.contains("bad password"))
    }
}
