// Every vaultctl command, declared once. `CommandParser` parses with it, `HelpFormatter` writes
// the usage text and each command's help from it, and `CompletionScript` generates the bash, zsh
// and fish completions from it (completions/ holds them, written by scripts/generate-completions;
// a test fails when they differ from what the table generates).
//
// How vaultctl uses it: `VaultCtl.main` parses with `CommandParser().parse(arguments)`, prints
// `.help(text)` on stdout and `.usage(text)` on stderr, and runs `.run(command, arguments)` through
// one switch over `CommandName` (`VaultCtl.run`), which calls the command's handler in Commands/.
// A `UsageError` a handler throws is printed as `error.within(command)`, with exit status 2.
//
// By then every option is one the command declares, a value is present exactly when the option
// takes one and is one of its choices when it has some, the positionals are as many as the
// command accepts and PROVIDER is one of its choices. Handlers read `arguments.options["label"]`
// and `arguments.flags.contains("json")`, and check only what the table does not express (which
// options a provider needs, a duration's form). A new option or command goes here, and nowhere
// else; then run scripts/generate-completions.

/// The commands of one program, their global options, and the closing lines of its usage text.
public struct CommandTable: Sendable {
    /// The program's name, as the usage text and the completion scripts call it.
    public var program: String
    /// The top-level commands, in the order of the usage text.
    public var commands: [CommandSpec]
    /// Options that may come anywhere before `--`, before or after the command (`--socket PATH`).
    public var globalOptions: [OptionSpec]
    /// The lines that close the usage text.
    public var epilogue: String

    public init(program: String, commands: [CommandSpec], globalOptions: [OptionSpec], epilogue: String) {
        self.program = program
        self.commands = commands
        self.globalOptions = globalOptions
        self.epilogue = epilogue
    }

    /// Every spec, groups and their subcommands included, in the order of the usage text.
    public var allSpecs: [CommandSpec] {
        commands.flatMap { [$0] + $0.subcommands }
    }

    /// The spec of a command that runs.
    public func spec(_ command: CommandName) -> CommandSpec {
        guard let spec = allSpecs.first(where: { $0.command == command }) else {
            preconditionFailure("the command table has no '\(command.rawValue)'")
        }
        return spec
    }

    /// The help command's aliases that look like options (`--help`, `-h`): help for the command
    /// they follow.
    public var helpFlags: [String] { spec(.help).aliases.filter { $0.hasPrefix("-") } }

    /// The spec named by words as typed, aliases allowed: ["rm"], ["session", "import"].
    public func spec(path words: [String]) -> CommandSpec? {
        guard let first = words.first, var spec = commands.first(where: { $0.isNamed(first) }) else { return nil }
        for word in words.dropFirst() {
            guard let subcommand = spec.subcommand(named: word) else { return nil }
            spec = subcommand
        }
        return spec
    }
}

extension CommandTable {
    /// vaultctl's commands with exactly the options and positionals each accepts.
    public static let vaultctl = CommandTable(
        program: "vaultctl",
        commands: [
            CommandSpec(
                .get, summary: "print the secret (--json: with its metadata)",
                discussion: """
                    Write the secret to stdout byte for byte, with a newline only when stdout is a terminal.
                    """,
                positionals: item,
                options: [.flag("json", help: "print the item with its metadata as JSON (secret, or secret_b64 for bytes that are not UTF-8)")]),
            CommandSpec(
                .set, summary: "store a secret read from stdin or a prompt",
                discussion: """
                    Store the secret read from stdin (one trailing newline removed unless --raw), or from a
                    prompt without echo on a terminal, replacing the item's secret when it exists. Empty stdin
                    is refused (it is usually a mistake that would wipe the secret) unless --allow-empty.
                    """,
                positionals: item, options: itemMetadata,
                extraArgumentsHint: "secrets are read from stdin, never from arguments: printf '%s' \"$TOKEN\" | vaultctl set SERVICE ACCOUNT"),
            CommandSpec(
                .add, summary: "like set, but fail when the item exists",
                discussion: """
                    Like set, but fail with exit status 6 when the item exists.
                    """,
                positionals: item, options: itemMetadata,
                extraArgumentsHint: "secrets are read from stdin, never from arguments: printf '%s' \"$TOKEN\" | vaultctl add SERVICE ACCOUNT"),
            CommandSpec(
                .delete, aliases: ["rm"], summary: "remove an item",
                discussion: """
                    Remove the item.
                    """,
                positionals: item),
            CommandSpec(
                .list, aliases: ["ls"], summary: "names and metadata, never secrets",
                discussion: """
                    List services, accounts, labels, kinds, modification times and, for sign-in sessions, the
                    provider, user and expiry; never secrets or tokens. A table on a terminal, tab-separated
                    lines without a header otherwise.
                    """,
                positionals: [PositionalSpec("SERVICE", optional: true, completion: .services, help: "only this service's items")],
                options: [.flag("json", help: "print the items as JSON")]),
            CommandSpec(
                .status, summary: "daemon, store and lock state",
                discussion: """
                    Show the daemon, the store in use and why, whether it is locked, and the sign-in sessions.
                    """,
                options: [.flag("json", help: "print the status as JSON")]),
            CommandSpec(
                .lock, summary: "drop keys from vaultd's memory",
                discussion: """
                    Make vaultd drop its keys from memory. With the Secret Service: lock its default
                    collection, which other applications share.
                    """),
            CommandSpec(
                .unlock, summary: "unlock (prompt, or passphrase on stdin)",
                discussion: """
                    Unlock the vault: a prompt without echo on a terminal, otherwise the first line of stdin.
                    The first unlock of a new vault chooses its passphrase (asked twice on a terminal). With
                    the Secret Service: ask it to unlock its collection (it may show its own prompt).
                    """),
            CommandSpec(
                .passwd, summary: "change the passphrase (prompts, or two lines on stdin)",
                discussion: """
                    Change the passphrase: prompts on a terminal, otherwise two lines on stdin, the current
                    passphrase and then the new one. The vault gets a new key and every item is re-encrypted,
                    so an old copy of the file and the old passphrase decrypt nothing written afterwards.
                    """,
                options: [
                    .flag("rewrap-only", help: "keep the data key and only re-wrap it (fast; not for a passphrase that leaked)"),
                ]),
            CommandSpec(
                .token, summary: "print a valid access token, refreshed when needed",
                discussion: """
                    Print a valid access token of a sign-in session; vaultd refreshes the session first when
                    the token expires within --min-ttl. Exit status 4 when the session needs a new sign-in.
                    It never prompts. --format exec-credential answers kubectl in the apiVersion that
                    KUBERNETES_EXEC_INFO asks for (client.authentication.k8s.io/v1 or v1beta1; v1 without it).
                    """,
                positionals: [
                    PositionalSpec("SERVICE", completion: .services, help: "the session's service"),
                    PositionalSpec("ACCOUNT", optional: true, help: "the session's account, needed when SERVICE has more than one"),
                ],
                options: [
                    OptionSpec("min-ttl", value: "DURATION", help: "refresh first when the token expires within this: 60, 90s, 5m (default 60s)"),
                    OptionSpec("format", value: "FORMAT", choices: ["raw", "json", "env", "header", "exec-credential"],
                               help: "raw (the default), json, env (export NAME=...), header (Authorization: ...) or exec-credential (kubectl)"),
                    OptionSpec("env-name", value: "NAME", help: "the variable --format env sets (default ACCESS_TOKEN)"),
                ]),
            CommandSpec(
                .read, summary: "print what a vault:// reference names",
                discussion: """
                    Print the value a secret reference names: vault://SERVICE/ACCOUNT is the item's secret, or
                    a sign-in session's current access token (refreshed by vaultd when needed); vault://SERVICE
                    the one item or session of SERVICE; ?field=NAME a field (a session's access_token,
                    token_type or expires_at; a key of an item whose secret is a JSON object). A newline
                    follows only on a terminal.
                    """,
                positionals: [PositionalSpec("REFERENCE", help: "vault://SERVICE[/ACCOUNT][?field=NAME], percent-encoded")]),
            CommandSpec(
                .run, summary: "run COMMAND with vault:// references in its environment resolved",
                discussion: """
                    Run COMMAND with exactly the environment given, the lines of each --env-file applied on top
                    (later ones win), every value that is a vault:// reference replaced by what it names. All
                    references are resolved before COMMAND starts; one that fails is an error and COMMAND is not
                    started. INT, TERM, HUP, QUIT, USR1, USR2 and WINCH are forwarded; the exit status is
                    COMMAND's, 128+N when a signal N killed it. When stdout or stderr is not a terminal, the
                    resolved secrets in what COMMAND writes there are replaced with <concealed by vault>.
                    --on-refresh restart restarts COMMAND (TERM, 10 s, then KILL) when a referenced session's
                    token is refreshed; --on-refresh SIGNAL rewrites the file named by VAR_FILE for each
                    variable VAR that references a session, then sends COMMAND SIGNAL.
                    """,
                positionals: [
                    PositionalSpec("COMMAND", completion: .files, help: "the program to run (looked up in PATH); after it, every word is its own"),
                    PositionalSpec("ARGS", optional: true, variadic: true, help: "COMMAND's arguments, passed untouched"),
                ],
                options: [
                    OptionSpec("env-file", value: "FILE", completion: .files, repeatable: true,
                               help: "dotenv lines (KEY=VALUE, export, quotes, # comments) to add; references allowed"),
                    .flag("no-masking", help: "pass COMMAND's output through untouched, secrets included"),
                    OptionSpec("on-refresh", value: "ACTION",
                               help: "restart, or a signal (HUP, USR1, ...) sent after the VAR_FILE files are rewritten"),
                ]),
            CommandSpec(
                .inject, summary: "fill {{ vault://... }} placeholders of a template",
                discussion: """
                    Replace each {{ REFERENCE }} in TEMPLATE with what it names, and write the result to OUT,
                    created with --mode (default 0600) by an atomic replace, or to stdout. A reference that
                    fails leaves OUT untouched. --watch keeps running: after a referenced session's token is
                    refreshed, OUT is written again and --command runs (through /bin/sh -c).
                    """,
                options: [
                    OptionSpec("in-file", value: "TEMPLATE", completion: .files, short: "i", help: "the template (also -i)"),
                    OptionSpec("out-file", value: "OUT", completion: .files, short: "o", help: "where to write the result (also -o; default: stdout)"),
                    OptionSpec("mode", value: "MODE", help: "OUT's permissions in octal (default 0600)"),
                    .flag("watch", help: "write OUT again whenever a referenced token is refreshed (needs --out-file)"),
                    OptionSpec("command", value: "COMMAND", help: "with --watch: a shell command to run after each rewrite"),
                ]),
            CommandSpec(
                .login, summary: "sign in and keep the session (password: prompt or stdin)",
                discussion: """
                    Sign in and keep the session in the vault, for 'vaultctl token'. The password comes from a
                    prompt without echo or the first line of stdin, a client secret from --client-secret-file:
                    never from the command line. The email's form and the password's length are checked
                    before anything is sent.
                    """,
                positionals: [PositionalSpec("PROVIDER", choices: ["oauth2", "supabase", "firebase"], help: "who signs you in")],
                options: signIn,
                forms: [
                    UsageForm(["oauth2"], required: ["token-endpoint", "username", "service"],
                              optional: ["client-id", "client-secret-file", "scope", "revocation-endpoint"]),
                    UsageForm(["oauth2"], required: ["device", "device-endpoint", "token-endpoint", "service"],
                              optional: ["client-id", "client-secret-file", "scope"],
                              note: "sign in with a code approved on another device (RFC 8628)"),
                    UsageForm(["supabase"], required: ["url", "anon-key", "email"], optional: ["service"]),
                    UsageForm(["firebase"], required: ["api-key", "email", "service"], optional: ["url"]),
                ]),
            CommandSpec(
                .signup, summary: "sign up and keep the session; the password is asked twice",
                discussion: """
                    Create the account with the provider, then keep the session like login. On a terminal the
                    password is asked twice, and a weak one gets a warning. It takes login's options; those
                    for OAuth 2.0 have no use here, since OAuth 2.0 has no standard sign-up.
                    """,
                positionals: [PositionalSpec("PROVIDER", choices: ["supabase", "firebase"], help: "who signs you up")],
                options: signIn,
                forms: [
                    UsageForm(["supabase"], required: ["url", "anon-key", "email"], optional: ["service"]),
                    UsageForm(["firebase"], required: ["api-key", "email", "service"], optional: ["url"]),
                ]),
            CommandSpec(
                .resetPassword, summary: "ask the provider to email a password reset link",
                discussion: """
                    Ask Supabase Auth or Firebase to send a password reset email. No password is asked.
                    """,
                positionals: [PositionalSpec("PROVIDER", choices: ["supabase", "firebase"], help: "who keeps the account")],
                options: [url, anonKey, apiKey, email],
                forms: [
                    UsageForm(["supabase"], required: ["url", "anon-key", "email"]),
                    UsageForm(["firebase"], required: ["api-key", "email"], optional: ["url"]),
                ]),
            CommandSpec(
                .logout, summary: "sign out on the server, then remove the session",
                discussion: """
                    Sign out on the server where the provider supports it (an OAuth 2.0 revocation endpoint,
                    RFC 7009; Supabase), then remove the session from the vault. The session is removed only
                    when the server confirms; otherwise logout fails with the reason and keeps it. --local
                    forgets it here without asking the server.
                    """,
                positionals: [
                    PositionalSpec("SERVICE", completion: .services, help: "the session's service"),
                    PositionalSpec("ACCOUNT", optional: true, help: "the session's account, needed when SERVICE has more than one"),
                ],
                options: [.flag("local", help: "forget the session here only, without asking the server to end it")]),
            .group(
                "session", summary: "sessions obtained elsewhere (session import)",
                discussion: """
                    Sign-in sessions obtained elsewhere.
                    """,
                subcommands: [
                    CommandSpec(
                        .sessionImport, summary: "adopt a session (JSON on stdin; options fill in what it lacks)",
                        discussion: """
                            Adopt a session obtained elsewhere, as JSON on stdin: an OAuth 2.0 token response with
                            token_endpoint (and client_id), or a Supabase or Firebase session. The options fill in
                            what the JSON lacks, such as --provider supabase --url URL --anon-key KEY for
                            supabase-js's session object.
                            """,
                        positionals: item,
                        options: [
                            OptionSpec("provider", value: "PROVIDER", choices: ["oauth2", "supabase", "firebase"],
                                       help: "the provider, when the JSON does not say"),
                            url, anonKey, apiKey, tokenEndpoint, clientID,
                        ]),
                ]),
            .group(
                "aws", summary: "AWS credentials for credential_process (aws set, aws credential-process)",
                discussion: """
                    AWS credentials, kept as item 'aws' PROFILE of kind aws, for the AWS CLI and SDKs'
                    credential_process.
                    """,
                subcommands: [
                    CommandSpec(
                        .awsSet, summary: "store a profile's credentials (credential_process JSON on stdin)",
                        discussion: """
                            Store a profile's credentials, read from stdin as credential_process JSON:
                            {"AccessKeyId": ..., "SecretAccessKey": ..., "SessionToken": ..., "Expiration": ...}, the
                            last two optional (Expiration in RFC 3339). Each field is checked, and credentials that
                            have already expired are refused (exit status 2); no message ever shows a value.
                            """,
                        positionals: [profile]),
                    CommandSpec(
                        .awsCredentialProcess, summary: "print a profile's credentials as credential_process JSON",
                        discussion: """
                            Print the profile's credentials as credential_process JSON ("Version": 1), for the
                            line 'credential_process = /path/to/vaultctl aws credential-process PROFILE' in
                            ~/.aws/config. Missing credentials exit with status 3, expired ones with status 4;
                            the message on stderr never contains a secret.
                            """,
                        positionals: [profile]),
                ]),
            CommandSpec(
                .kubeconfig, summary: "print a kubeconfig user that gets its token from vaultctl",
                discussion: """
                    Print a kubeconfig 'users:' entry whose exec plugin is this vaultctl (by absolute path)
                    running 'token SERVICE --format exec-credential', with interactiveMode Never. Paste it
                    into ~/.kube/config and name it in a context's 'user:'. The sign-in session must exist.
                    """,
                positionals: [
                    PositionalSpec("SERVICE", completion: .services, help: "the session's service"),
                    PositionalSpec("ACCOUNT", optional: true, help: "the session's account, needed when SERVICE has more than one"),
                ],
                options: [
                    OptionSpec("name", value: "NAME", help: "the user's name in the kubeconfig (default: vault-SERVICE)"),
                    OptionSpec("api-version", value: "VERSION", choices: ["v1", "v1beta1"],
                               help: "the exec plugin's apiVersion: v1 (the default) or v1beta1 (kubectl before 1.22)"),
                ]),
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
                    OptionSpec("since", value: "DURATION", help: "only records of this last while: 30m, 2h, 7d"),
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
                    OptionSpec("to", value: "STORE", choices: ["file", "secret-service"], help: "the store to move to"),
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
        ],
        globalOptions: [
            OptionSpec("socket", value: "PATH", completion: .files,
                       help: "vaultd's socket, before or after the command (default: $VAULT_SOCKET, else $XDG_RUNTIME_DIR/vault/vault.sock or ~/.local/state/vault/vault.sock)"),
        ],
        epilogue: """
            'vaultctl help COMMAND' lists a command's options.
            Secrets are never taken from the command line. Exit codes: 0 ok, 1 error, 2 usage,
            3 not found, 4 locked or sign-in required, 5 vault unavailable, 6 duplicate,
            7 denied by an access rule or the approver.
            """)

    // Arguments and options several commands share.

    private static let item = [
        PositionalSpec("SERVICE", completion: .services, help: "the item's service"),
        PositionalSpec("ACCOUNT", help: "the item's account"),
    ]

    private static let profile = PositionalSpec("PROFILE", help: "the AWS profile's name, as in ~/.aws/config")

    private static let itemMetadata = [
        OptionSpec("label", value: "LABEL", help: "a label for listings"),
        OptionSpec("comment", value: "TEXT", help: "a comment kept with the item"),
        .flag("raw", help: "keep stdin byte for byte (by default one trailing newline is removed)"),
        .flag("allow-empty", help: "store an empty secret when stdin is empty (refused otherwise)"),
        .flag("confirm", help: "from now on, each read needs an answer from 'vaultctl approve' (unless an allowed program asks)"),
    ]

    private static let program = PositionalSpec("EXECUTABLE", completion: .files, help: "the program, or the script an interpreter runs")

    private static let url = OptionSpec("url", value: "URL", help: "Supabase: the project's URL; Firebase: an emulator's URL")
    private static let anonKey = OptionSpec("anon-key", value: "KEY", help: "Supabase: the project's anon key")
    private static let apiKey = OptionSpec("api-key", value: "KEY", help: "Firebase: the Web API key")
    private static let email = OptionSpec("email", value: "EMAIL", help: "Supabase, Firebase: the account's email")
    private static let tokenEndpoint = OptionSpec("token-endpoint", value: "URL", help: "OAuth 2.0: the token endpoint")
    private static let clientID = OptionSpec("client-id", value: "ID", help: "OAuth 2.0: the client's id")

    /// login's and signup's options.
    private static let signIn = [
        tokenEndpoint,
        OptionSpec("username", value: "NAME", help: "OAuth 2.0 password grant: the user"),
        clientID,
        OptionSpec("client-secret-file", value: "FILE", completion: .files, help: "OAuth 2.0: a file holding the client secret (never the command line)"),
        OptionSpec("scope", value: "SCOPE", help: "OAuth 2.0: the scope to ask for"),
        OptionSpec("service", value: "NAME", help: "the service to keep the session under (Supabase's default: the project's host)"),
        OptionSpec("account", value: "NAME", help: "the session's account (default: the email, the user, or 'default' with --device)"),
        url, anonKey, apiKey, email,
        OptionSpec("min-password-length", value: "N", help: "refuse a shorter password before sending anything (default 6)"),
        OptionSpec("revocation-endpoint", value: "URL", help: "OAuth 2.0: where logout revokes the session (RFC 7009)"),
        OptionSpec("device-endpoint", value: "URL", help: "OAuth 2.0 with --device: the device authorization endpoint"),
        .flag("device", help: "OAuth 2.0: sign in with a code approved on another device (RFC 8628)"),
    ]
}
