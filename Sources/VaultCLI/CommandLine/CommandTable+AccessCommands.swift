/// vaultctl's commands for access rules, approval, the audit log and upkeep: allow, disallow,
/// rules, approve, audit, doctor, migrate, version, help (`CommandTable.vaultctl`, in this order).
extension CommandTable {
    static let accessCommands: [CommandSpec] = [
        CommandSpec(
            .allow, summary: "let a program read an item (pins its path and content hash now)",
            discussion: """
                Let EXECUTABLE read the item with get, token or a credential helper. Once an item has a
                rule, only the programs it names get it (exit status 7 for others). The program is pinned
                by path and the SHA-256 of its content now: after an upgrade, allow it again. For a script,
                name the script: its interpreter is pinned with it (the one its #! line names, found in PATH
                for #!/usr/bin/env, or --interpreter), and the rule matches only that script run by that
                interpreter, with no option that runs other code and no loader or interpreter variable
                (LD_PRELOAD, PYTHONPATH, ...) in its environment. A program that serves whoever runs it
                (vaultctl, git-credential-vault, docker-credential-vault, an interpreter without a script)
                is refused unless --any-caller says every program that can run it is meant; mark the item
                --confirm instead to approve each use. Allowing a program on an item marked --confirm needs
                the approver's answer.
                """,
            positionals: item + [program],
            options: [OptionSpec("interpreter", value: "EXECUTABLE", completion: .files,
                                 help: "for a script without a #! line (run as python3 tool.py): the program that runs it"),
                      .flag("any-caller", help: "allow a program that serves whoever runs it (vaultctl, a credential helper, a bare interpreter): every program that can run it may read the item")]),
        CommandSpec(
            .disallow, summary: "remove a program's rule from an item",
            discussion: """
                Remove the rule that lets EXECUTABLE read the item. When the last rule goes (and the item is
                not marked --confirm), any program of yours can read it again.
                """,
            positionals: item + [program]),
        CommandSpec(
            .rules, summary: "the programs allowed to read an item",
            discussion: """
                Show whether the item needs confirmation and which programs may read it, with the hash
                each was pinned with.
                """,
            positionals: item,
            options: [.flag("json", help: "print the rules as JSON")]),
        CommandSpec(
            .approve, summary: "answer requests for items that need confirmation (in a terminal)",
            discussion: """
                Run in a terminal (or tmux pane): shows each request for an item marked --confirm (the
                caller's program, pid, working directory and systemd unit, and the item) and reads the
                answer: o (once), m N (for N minutes), a (always: writes an allow rule) or d (deny). No
                answer in time denies. Without an approver running, such requests fail at once. It first
                asks for the approval secret, which proves to vaultd that a person answers, not a program
                (the first time, you choose it; on the file store, with the vault's passphrase). A request
                shows the caller's parent processes too, and is never shown to an approver it started.
                """,
            options: [.flag("new-secret", help: "change the approval secret (asks for the current one or the vault's passphrase)")]),
        CommandSpec(
            .audit, summary: "the audit log: who read or changed which item, and when",
            discussion: """
                Print vaultd's audit log: every get, token, set, add, delete, denial and approval, with the
                time, the caller (pid, executable, unit), the item and the result; never a secret. The log is
                sealed like the vault: reading it needs the vault unlocked.
                """,
            options: [
                auditSince,
                .flag("follow", help: "keep printing records as they are written"),
                .flag("json", help: "one JSON object per line"),
            ]),
        CommandSpec(
            .doctor, summary: "check each store; exit 0 only when the one in use works",
            discussion: """
                Check each store: the session bus, the Secret Service, its default collection, a probe
                write, read and delete; the file store's path, permissions and passphrase source. Exit
                status 0 only when the store in use works.
                """,
            options: [.flag("json", help: "print the report as JSON")]),
        CommandSpec(
            .migrate, summary: "move every item to the other store, verified",
            discussion: """
                Move every item to the other store: copy, read each back, and only then remove the
                originals. An item the destination already holds with a different secret is kept on both
                sides (exit status 6). Interrupted, nothing is lost; run it again to finish. The file
                store's passphrase is asked (or read from stdin) when it is needed.
                """,
            options: [
                migrateTarget,
                .flag("json", help: "print the report as JSON"),
            ],
            forms: [UsageForm([], required: ["to"], optional: ["json"])]),
        CommandSpec(
            .version, aliases: ["--version"], summary: "print vaultctl's version",
            discussion: """
                Print vaultctl's version.
                """),
        CommandSpec(
            .help, aliases: ["--help", "-h"], summary: "this text, or one command's usage and options",
            discussion: """
                Show the usage of every command, or of one with all its options. 'vaultctl COMMAND --help'
                (or -h) does the same.
                """,
            positionals: [
                PositionalSpec("COMMAND", optional: true, completion: .commands, help: "the command to explain"),
                PositionalSpec("SUBCOMMAND", optional: true, help: "a group's subcommand: 'help session import'"),
            ]),
    ]
}
