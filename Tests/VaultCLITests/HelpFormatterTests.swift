import Testing
import VaultCLI

@Suite struct HelpFormatterTests {
    let table = CommandTable.vaultctl
    let formatter = HelpFormatter()

    @Test func usageListsEveryCommandAndTheClosingLines() {
        let usage = formatter.usage()
        #expect(usage.hasPrefix("usage: vaultctl [--socket PATH] COMMAND [ARGS]\n\n"))
        let lines = usage.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for spec in table.allSpecs where !spec.isGroup {
            #expect(lines.contains { $0.hasPrefix("  " + spec.displayName + " ") || $0 == "  " + spec.displayName }, "\(spec.displayName)")
            #expect(usage.contains(spec.summary), "\(spec.displayName)")
            for alias in spec.aliases { #expect(usage.contains(alias)) }
        }
        #expect(usage.contains("  get SERVICE ACCOUNT [--json]     print the secret (--json: with its metadata)\n"))
        #expect(usage.contains("  login supabase --url URL --anon-key KEY --email EMAIL [--service NAME]\n"))
        #expect(usage.contains("  migrate --to file|secret-service [--json]\n"))
        #expect(usage.hasSuffix("""
            Secrets are never taken from the command line. Exit codes: 0 ok, 1 error, 2 usage,
            3 not found, 4 locked or sign-in required, 5 vault or remote engine unavailable (a cached
            copy past --max-age), 6 duplicate or write conflict, 7 denied by an access rule or the approver.

            """))
    }

    @Test func eachCommandsHelpMentionsEveryOptionAndArgument() {
        for spec in table.allSpecs {
            let help = formatter.help(for: spec)
            #expect(help.hasPrefix("usage: vaultctl " + spec.displayName), "\(spec.displayName)")
            #expect(help.contains(spec.discussion))
            for option in spec.options + table.globalOptions {
                #expect(help.contains("  " + option.synopsis), "\(spec.displayName): \(option.spelling)")
                #expect(help.contains(option.help.split(separator: " ").prefix(4).joined(separator: " ")), "\(spec.displayName): \(option.spelling)")
            }
            for positional in spec.positionals {
                #expect(help.contains(positional.name), "\(spec.displayName): \(positional.name)")
                for choice in positional.choices { #expect(help.contains(choice)) }
            }
            for subcommand in spec.subcommands {
                #expect(help.contains("  " + subcommand.name + " "))
            }
            #expect(help.contains("  --help, -h "))
        }
    }

    @Test func helpForOneCommand() {
        #expect(formatter.help(for: table.spec(.delete)) == """
            usage: vaultctl delete SERVICE [ACCOUNT]

            Remove the item. 'delete kv://REMOTE/PATH' deletes a remote secret's latest version (KV
            version 2's soft delete, which 'bao kv undelete' reverses).

            arguments:
              SERVICE                 the item's service
              [ACCOUNT]               the item's account (none for kv://REMOTE/PATH)

            options:
              --socket PATH           vaultd's socket, before or after the command (default: $VAULT_SOCKET, else
                                      $XDG_RUNTIME_DIR/vault/vault.sock or ~/.local/state/vault/vault.sock)
              --help, -h              show this help

            alias: rm

            """)
        let login = formatter.help(for: table.spec(.login))
        #expect(login.hasPrefix("""
            usage: vaultctl login oauth2 --token-endpoint URL --username NAME --service NAME [--client-id ID]
                                  [--client-secret-file FILE] [--scope SCOPE] [--revocation-endpoint URL]
                   vaultctl login oauth2 --device --device-endpoint URL --token-endpoint URL --service NAME
            """))
        #expect(login.contains("  PROVIDER                who signs you in: oauth2, supabase or firebase\n"))
        #expect(login.contains("  --client-secret-file FILE\n                          OAuth 2.0: a file holding the client secret"))
    }

    @Test func linesFitTheWidth() {
        let texts = [formatter.usage()] + table.allSpecs.map { formatter.help(for: $0) }
        for text in texts {
            for line in text.split(separator: "\n") {
                #expect(line.count <= formatter.width, "\(line)")
            }
        }
    }
}
