import Foundation
import Testing
import VaultCore

/// The mistakes a new user makes in the first hour (issue 12): each one either refused with a
/// message that names the real cause and the fix, or, for a mistake that would lose data, refused
/// before anything is changed.
@Suite struct EverydayMistakesTests {
    @Test func emptyStdinNeverWipesASecret() throws {
        let vault = VaultHarness()
        #expect(try vault.ctl("set", "github.com", "octocat", input: "ghp_token").status == 0)
        // `vaultctl set ... </dev/null`, `printf '%s' "$UNSET" | vaultctl set ...`
        for input in ["", "\n"] {
            let empty = try vault.ctl("set", "github.com", "octocat", input: input)
            #expect(empty.status == 2)
            #expect(empty.stderr.contains("stdin was empty") && empty.stderr.contains("--allow-empty"))
            #expect(try vault.ctl("get", "github.com", "octocat").stdout == Array("ghp_token".utf8))
        }
        let fromDevNull = try vault.run(["/bin/sh", "-c", "exec \"$0\" set github.com octocat </dev/null", VaultHarness.vaultctl])
        #expect(fromDevNull.status == 2)
        #expect(try vault.ctl("get", "github.com", "octocat").stdout == Array("ghp_token".utf8))
        #expect(try vault.ctl("add", "new", "item", input: "").status == 2)
        #expect(try vault.ctl("get", "new", "item").status == 3)
        // On purpose: the flag says so.
        #expect(try vault.ctl("set", "github.com", "octocat", "--allow-empty", input: "").status == 0)
        let got = try vault.ctl("get", "github.com", "octocat")
        #expect(got.status == 0 && got.stdout.isEmpty)
    }

    @Test func usageMessagesNameWhatIsWrongAndTheFix() throws {
        let vault = VaultHarness()
        let missing = try vault.ctl("get", "github.com")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("get: missing ACCOUNT;"))

        let secretInArgv = try vault.ctl("set", "S", "A", "hunter2")
        #expect(secretInArgv.status == 2)
        #expect(secretInArgv.stderr.contains("secrets are read from stdin"))
        #expect(secretInArgv.stderr.contains("printf '%s' \"$TOKEN\" | vaultctl set S A"))
        #expect(!secretInArgv.stderr.contains("hunter2"))
        #expect(try vault.ctl("get", "S", "A").status == 3)

        // help COMMAND and COMMAND --help: that command's usage, not the whole list.
        for arguments in [["help", "get"], ["get", "--help"], ["get", "-h"]] {
            let help = try vault.ctl(arguments)
            #expect(help.status == 0)
            #expect(help.text.hasPrefix("usage: vaultctl get SERVICE ACCOUNT"))
            #expect(!help.text.contains("vaultctl set"))
        }

        let typo = try vault.ctl("lsit")
        #expect(typo.status == 2 && typo.stderr.contains("did you mean 'list'?"))
        let optionTypo = try vault.ctl("list", "--jsno")
        #expect(optionTypo.status == 2 && optionTypo.stderr.contains("did you mean '--json'?"))
    }
}
