import Foundation
import Testing
import VaultCore
import VaultSystem

/// vaultctl read, run and inject against the real vaultd (and, for sessions, the OAuth fixture).
@Suite struct SecretReferenceCommandTests {
    let secret = "s3cr3t-value-for-e2e"

    func vaultWithItems() throws -> VaultHarness {
        let vault = VaultHarness()
        #expect(try vault.ctl(["set", "api", "prod", "--raw"], input: Array(secret.utf8)).status == 0)
        #expect(try vault.ctl(["set", "aws", "default", "--raw"], input: Array(#"{"AccessKeyId":"AKIAE2E","SecretAccessKey":"sk/with=equals"}"#.utf8)).status == 0)
        return vault
    }

    func file(_ path: String) -> String? { (try? String(contentsOfFile: path, encoding: .utf8)) }

    /// Waits for `condition` until `seconds` have passed; true when it held.
    func waitUntil(_ seconds: Double = 40, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// Starts `vaultctl ARGUMENTS` in the background, stdout and stderr into files under the root.
    func start(_ vault: VaultHarness, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: VaultHarness.vaultctl)
        process.arguments = arguments
        process.environment = vault.environment.merging(extra) { $1 }
        process.standardInput = FileHandle.nullDevice
        FileManager.default.createFile(atPath: vault.root + "/bg.out", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: vault.root + "/bg.out")
        process.standardError = FileHandle(forWritingAtPath: vault.root + "/bg.out")
        try process.run()
        return process
    }

    @Test func readPrintsItemsFieldsAndRefusesBadReferences() throws {
        let vault = try vaultWithItems()
        #expect(try vault.ctl("read", "vault://api/prod").text == secret)
        #expect(try vault.ctl("read", "vault://api").text == secret)
        #expect(try vault.ctl("read", "vault://aws/default?field=SecretAccessKey").text == "sk/with=equals")
        let missing = try vault.ctl("read", "vault://api/staging")
        #expect(missing.status == 3 && missing.stderr.contains("'vault://api/staging' names nothing"))
        let noField = try vault.ctl("read", "vault://aws/default?field=Nope")
        #expect(noField.status == 3 && noField.stderr.contains("Nope"))
        #expect(try vault.ctl("read", "vault://api/prod?field=x").status == 2)
        #expect(try vault.ctl("set", "api", "staging", input: "other").status == 0)
        let several = try vault.ctl("read", "vault://api")
        #expect(several.status == 2 && several.stderr.contains("names 2 items") && !several.stderr.contains(secret))
        let bad = try vault.ctl("read", "vault://api/pr%zzod\u{1B}[2J")
        #expect(bad.status == 2 && bad.stderr.contains("control character") && !bad.stderr.contains("\u{1B}"))
        #expect(try vault.ctl("read", "vault://api/pr%zzod").stderr.contains("percent-encoding"))
    }

    @Test func runResolvesTheEnvironmentAndEnvFiles() throws {
        let vault = try vaultWithItems()
        let envFile = vault.root + "/app.env"
        try """
            # settings
            export PLAIN='single quoted # not a comment'
            DOUBLE="two\\nlines"
            WITH_EQUALS=a=b=c   # a comment
            API_KEY=vault://api/prod
            AWS_SECRET="vault://aws/default?field=SecretAccessKey"

            """.write(toFile: envFile, atomically: true, encoding: .utf8)
        let out = vault.root + "/child.env"
        let result = try vault.ctl(["run", "--env-file", envFile, "--", "sh", "-c",
                                    #"printf '%s|%s|%s|%s|%s|%s' "$PLAIN" "$DOUBLE" "$WITH_EQUALS" "$API_KEY" "$AWS_SECRET" "$FROM_ENV" > "$0""#, out],
                                   environment: ["FROM_ENV": "vault://aws/default?field=AccessKeyId"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(file(out) == "single quoted # not a comment|two\nlines|a=b=c|\(secret)|sk/with=equals|AKIAE2E")
    }

    @Test func aFailingReferenceOrBadLineStartsNothing() throws {
        let vault = try vaultWithItems()
        let marker = vault.root + "/started"
        let envFile = vault.root + "/bad.env"
        try "OK=vault://api/prod\nMISSING=vault://api/nope\n".write(toFile: envFile, atomically: true, encoding: .utf8)
        let missing = try vault.ctl(["run", "--env-file", envFile, "--", "touch", marker])
        #expect(missing.status == 3 && missing.stderr.contains("MISSING: 'vault://api/nope' names nothing") && missing.stderr.contains("not started"))
        try "OK=vault://api/prod\nthis is not a line \(secret)\n".write(toFile: envFile, atomically: true, encoding: .utf8)
        let badLine = try vault.ctl(["run", "--env-file", envFile, "--", "touch", marker])
        #expect(badLine.status == 2 && badLine.stderr.contains("bad.env':2:") && !badLine.stderr.contains(secret))
        let badReference = try vault.ctl(["run", "--", "touch", marker], environment: ["X": "vault://api/prod?bogus=1"])
        #expect(badReference.status == 2 && badReference.stderr.contains("'bogus' is not a query key"))
        #expect(try vault.ctl(["run", "--env-file", vault.root + "/absent.env", "--", "touch", marker]).status != 0)
        #expect(!FileManager.default.fileExists(atPath: marker), "COMMAND must not have started")
    }

    @Test func exitStatusAndSignals() throws {
        let vault = try vaultWithItems()
        #expect(try vault.ctl(["run", "--", "sh", "-c", "exit 7"]).status == 7)
        #expect(try vault.ctl(["run", "--", "sh", "-c", "kill -KILL $$"]).status == 128 + 9)
        #expect(try vault.ctl(["run", "--", "sh", "-c", "kill -USR1 $$"]).status == 128 + SIGUSR1)
        #expect(try vault.ctl(["run", "--", "/nonexistent/program"]).status == 127)

        // A child that traps TERM: the TERM sent to vaultctl reaches it, and its status is vaultctl's.
        let ready = vault.root + "/ready", trapped = vault.root + "/trapped"
        let process = try start(vault, ["run", "--", "sh", "-c",
                                        #"trap 'echo term > "$1"; exit 42' TERM; echo up > "$0"; while :; do sleep 0.1; done"#, ready, trapped])
        #expect(waitUntil { file(ready) != nil })
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 42)
        #expect(file(trapped) == "term\n")

        // USR2 and WINCH are forwarded too; HUP kills a child that does not trap it: 128+1.
        let usr2 = vault.root + "/usr2"
        let second = try start(vault, ["run", "--", "sh", "-c",
                                       #"trap 'echo usr2 >> "$1"' USR2; trap 'echo winch >> "$1"' WINCH; echo up > "$0"; while :; do sleep 0.1; done"#, ready + "2", usr2])
        #expect(waitUntil { file(ready + "2") != nil })
        kill(second.processIdentifier, SIGUSR2)
        #expect(waitUntil { file(usr2)?.contains("usr2") == true })
        kill(second.processIdentifier, SIGWINCH)
        #expect(waitUntil { file(usr2)?.contains("winch") == true })
        kill(second.processIdentifier, SIGHUP)
        second.waitUntilExit()
        #expect(second.terminationStatus == 128 + SIGHUP)
    }

    @Test func theSecretIsInTheChildsEnvironmentAndNeverInAnyArgv() throws {
        let vault = try vaultWithItems()
        let pidFile = vault.root + "/pid"
        let process = try start(vault, ["run", "--", "sh", "-c", #"echo $$ > "$0"; exec sleep 60"#, pidFile], environment: ["API_KEY": "vault://api/prod"])
        var pid = ""
        #expect(waitUntil {
            pid = file(pidFile)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return !pid.isEmpty && (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))).map { String(decoding: $0, as: UTF8.self).hasPrefix("sleep") } == true
        })
        let cmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        let ownCmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/cmdline"))
        #expect(String(decoding: cmdline, as: UTF8.self) == "sleep\u{0}60\u{0}")
        #expect(!String(decoding: ownCmdline, as: UTF8.self).contains(secret))
        #expect(String(decoding: environ, as: UTF8.self).split(separator: "\u{0}").contains("API_KEY=\(secret)"))
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGTERM)
    }

    @Test func maskingOnPipesAndNotOnATerminal() throws {
        let vault = try vaultWithItems()
        let script = #"echo "out $S!"; echo "err $S" >&2; printf '%s' "$S" | head -c 5; echo; printf 'tail %s' "$S""#
        let piped = try vault.ctl(["run", "--", "sh", "-c", script], environment: ["S": "vault://api/prod"])
        #expect(piped.status == 0)
        #expect(piped.text == "out <concealed by vault>!\n\(secret.prefix(5))\ntail <concealed by vault>", "\(piped.text)")
        #expect(piped.stderr == "err <concealed by vault>\n")
        let unmasked = try vault.ctl(["run", "--no-masking", "--", "sh", "-c", script], environment: ["S": "vault://api/prod"])
        #expect(unmasked.text.contains("out \(secret)!") && unmasked.stderr.contains(secret))

        // Under script(1) stdout is a terminal: the child gets it as it is, unmasked.
        let tty = try vault.run(["/usr/bin/script", "-qec", "\(VaultHarness.vaultctl) run -- sh -c 'test -t 1 && echo \"tty $S\"'", "/dev/null"],
                                environment: ["S": "vault://api/prod"])
        #expect(tty.status == 0, "\(tty.stderr)")
        #expect(tty.text.contains("tty \(secret)"), "\(tty.text)")
    }

    @Test func injectWritesAtomicallyWithItsModeAndLeavesTheOldFileOnFailure() throws {
        let vault = try vaultWithItems()
        let template = vault.root + "/config.tpl", output = vault.root + "/config.ini"
        try "key = {{ vault://api/prod }}\nid={{vault://aws/default?field=AccessKeyId}}\nother = {{ not.ours }}\n"
            .write(toFile: template, atomically: true, encoding: .utf8)
        try "old contents\n".write(toFile: output, atomically: true, encoding: .utf8)
        let oldInode = try FileManager.default.attributesOfItem(atPath: output)[.systemFileNumber] as? UInt64
        let injected = try vault.ctl("inject", "-i", template, "-o", output)
        #expect(injected.status == 0, "\(injected.stderr)")
        #expect(file(output) == "key = \(secret)\nid=AKIAE2E\nother = {{ not.ours }}\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: output)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(attributes[.systemFileNumber] as? UInt64 != oldInode, "replaced by a rename, not rewritten in place")
        #expect(try vault.ctl("inject", "--in-file", template).text == "key = \(secret)\nid=AKIAE2E\nother = {{ not.ours }}\n")
        #expect(try vault.ctl("inject", "-i", template, "-o", output, "--mode", "0640").status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int) == 0o640)

        try "kept\n".write(toFile: output, atomically: true, encoding: .utf8)
        try "a={{ vault://api/prod }}\nb={{ vault://api/missing }}\n".write(toFile: template, atomically: true, encoding: .utf8)
        let failed = try vault.ctl("inject", "-i", template, "-o", output)
        #expect(failed.status == 3 && failed.stderr.contains("'vault://api/missing'"))
        #expect(file(output) == "kept\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: vault.root).allSatisfy { !$0.hasPrefix(".vault-tmp-") })
        #expect(try vault.ctl("inject", "-i", template, "-o", output, "--mode", "999").status == 2)
        #expect(try vault.ctl("inject", "-i", template, "--watch").status == 2)
    }

    // MARK: Sessions refreshed while a child runs (8-second tokens: vaultctl asks ~4 s before expiry)

    func signedIn(_ vault: VaultHarness) throws -> OAuthServer {
        let server = try OAuthServer(vault, tokenSeconds: 8)
        let login = try server.login(vault)
        #expect(login.status == 0, "\(login.stderr)")
        return server
    }

    /// "TIME TOKEN EXPIRES_AT" lines: when a child started, with which token, and that token's expiry.
    func starts(_ path: String) -> [(time: Double, token: String, expires: Double)] {
        (file(path) ?? "").split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 3, let time = Double(words[0]), let expires = Timestamp.milliseconds(rfc3339: String(words[2])) else { return nil }
            return (time, String(words[1]), Double(expires) / 1000)
        }
    }

    @Test func runRestartsTheChildWithTheNewTokenBeforeTheOldOneExpires() throws {
        let vault = VaultHarness()
        let server = try signedIn(vault)
        let log = vault.root + "/starts"
        let process = try start(vault, ["run", "--on-refresh", "restart", "--", "sh", "-c", #"echo "$(date +%s.%N) $TOKEN $EXPIRES" >> "$0"; exec sleep 60"#, log],
                                environment: ["TOKEN": "vault://example/alice", "EXPIRES": "vault://example/alice?field=expires_at"])
        #expect(waitUntil { Set(starts(log).map(\.token)).count >= 2 }, "\(file(vault.root + "/bg.out") ?? "")")
        let lines = starts(log)
        try #require(lines.count >= 2)
        #expect(lines[1].token != lines[0].token)
        #expect(lines[1].time < lines[0].expires, "the child must have the new token before the old one expires")
        #expect(lines[1].expires > lines[0].expires)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGTERM)
        server.stop()
    }

    @Test func runSignalsTheChildAfterRewritingItsPrivateTokenFile() throws {
        let vault = VaultHarness()
        let server = try signedIn(vault)
        let seen = vault.root + "/seen", info = vault.root + "/info"
        let child = #"echo "$TOKEN_FILE $(cat "$TOKEN_FILE")" > "$1"; trap 'cat "$TOKEN_FILE" >> "$0"; echo >> "$0"' HUP; while :; do sleep 0.1; done"#
        let process = try start(vault, ["run", "--on-refresh", "HUP", "--", "sh", "-c", child, seen, info], environment: ["TOKEN": "vault://example/alice"])
        #expect(waitUntil { file(info) != nil && file(seen)?.isEmpty == false }, "\(file(vault.root + "/bg.out") ?? "")")
        let words = (file(info) ?? "").split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(words.count == 2)
        let (tokenFile, firstToken) = (words[0], words[1])
        let refreshed = (file(seen) ?? "").split(separator: "\n").first.map(String.init)
        #expect(refreshed != nil && refreshed != firstToken)
        #expect(file(tokenFile) != firstToken)
        let fileMode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        let directory = FileSystem.parentDirectory(of: tokenFile)
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
        #expect(fileMode == 0o600 && directoryMode == 0o700)
        process.terminate()
        process.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: directory), "the private directory is removed when run ends")
        server.stop()
    }

    @Test func injectWatchRendersAgainAfterARefreshAndRunsTheCommand() throws {
        let vault = VaultHarness()
        let server = try signedIn(vault)
        let template = vault.root + "/token.tpl", output = vault.root + "/token.conf", ran = vault.root + "/ran"
        try "Authorization: Bearer {{ vault://example/alice }}\n".write(toFile: template, atomically: true, encoding: .utf8)
        let process = try start(vault, ["inject", "-i", template, "-o", output, "--watch", "--command", "echo reloaded >> \(ran)"])
        #expect(waitUntil { file(output) != nil })
        let first = file(output)
        #expect(waitUntil { file(ran) != nil }, "\(file(vault.root + "/bg.out") ?? "")")
        #expect(file(output) != first && file(output)?.hasPrefix("Authorization: Bearer ") == true)
        process.terminate()
        process.waitUntilExit()
        server.stop()
    }
}
