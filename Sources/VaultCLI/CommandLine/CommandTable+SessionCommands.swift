/// vaultctl's commands for sign-in sessions, secret references and the tools that take them:
/// token, read, run, inject, login, signup, reset-password, logout, the session, aws and
/// kubeconfig groups (`CommandTable.vaultctl`, in this order).
extension CommandTable {
    static let sessionCommands: [CommandSpec] = [
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
                minTTL,
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
                outMode,
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
                        importProvider,
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
    ]
}
