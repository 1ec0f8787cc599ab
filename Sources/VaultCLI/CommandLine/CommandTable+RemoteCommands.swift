/// vaultctl's commands for remote engines (OpenBao, HashiCorp Vault): the remote group, write
/// and history (`CommandTable.vaultctl`, after the session commands).
extension CommandTable {
    static let remoteName = PositionalSpec("NAME", help: "the remote's name: letters, digits, '.', '_', '-'")
    static let remoteReference = PositionalSpec("REFERENCE", help: "kv://REMOTE/PATH, percent-encoded")
    static let remoteMaxAge = OptionSpec("max-age", value: "DURATION", kind: .duration(allowsZero: false), help: "serve cached copies this old while the engine cannot be reached (default: 1d)")

    static let remoteCommands: [CommandSpec] = [
        .group(
            "remote", summary: "remote engines: a team's OpenBao or HashiCorp Vault (remote add, list, sync, ...)",
            discussion: """
                Remote engines (OpenBao, HashiCorp Vault) whose KV v2 secrets vaultd serves through every
                door as kv://REMOTE/PATH, cached in the local encrypted store and refreshed in the
                background; while the engine cannot be reached, cached copies younger than the remote's
                --max-age are served.
                """,
            subcommands: [
                CommandSpec(
                    .remoteAdd, summary: "add an engine and log in (the secret on stdin or a prompt)",
                    discussion: """
                        Add a remote engine and log in to it now. --auth token reads the token, approle the
                        secret id (with --role-id), userpass the password (with --username) from stdin or a
                        no-echo prompt, never from the command line; jwt logs in with the JWT in --jwt-file
                        (read again at each login) and --role. vaultd keeps the credential in the encrypted
                        store, renews the engine's token before it expires and logs in again when renewal is
                        refused. https:// is verified against the system's authorities or --ca-file;
                        http:// only to a loopback address.
                        """,
                    positionals: [remoteName],
                    options: [
                        OptionSpec("url", value: "URL", help: "the engine's address: https://HOST:PORT (http:// only on loopback)"),
                        OptionSpec("auth", value: "METHOD", choices: ["token", "approle", "userpass", "jwt"], help: "how vaultd logs in: token, approle, userpass or jwt"),
                        OptionSpec("mount", value: "MOUNT", help: "the KV version 2 mount (default: secret)"),
                        OptionSpec("prefix", value: "PATH", help: "a folder in the mount that kv://REMOTE/PATH is under"),
                        OptionSpec("ca-file", value: "FILE", completion: .files, help: "PEM certificate authorities to trust instead of the system's"),
                        remoteMaxAge,
                        OptionSpec("role-id", value: "ID", help: "the AppRole role id (--auth approle)"),
                        OptionSpec("username", value: "USER", help: "the userpass user (--auth userpass)"),
                        OptionSpec("role", value: "ROLE", help: "the JWT role (--auth jwt)"),
                        OptionSpec("jwt-file", value: "FILE", completion: .files, help: "the file holding the JWT, such as a CI job's token (--auth jwt)"),
                    ]),
                CommandSpec(
                    .remoteList, summary: "the remotes: address, auth, token, cache",
                    discussion: """
                        List the remote engines: address, mount, auth method, whether the engine answered
                        last time, the token's time left, and how many secrets are cached and how old.
                        """,
                    options: [.flag("json", help: "print the remotes as JSON")]),
                CommandSpec(
                    .remoteRemove, summary: "forget a remote and its cached secrets",
                    discussion: """
                        Forget the remote, its credential and every cached copy of its secrets. A token vaultd
                        obtained by logging in is revoked; a token you gave is left alone.
                        """,
                    positionals: [remoteName]),
                CommandSpec(
                    .remoteLogin, summary: "log in again (a new secret on stdin or at a prompt)",
                    discussion: """
                        Log in to the remote again. With stdin not a terminal, or --new, a new token, secret id
                        or password is read first (for --auth jwt, the JWT file is read again).
                        """,
                    positionals: [remoteName],
                    options: [.flag("new", help: "ask for a new token, secret id or password at the prompt")]),
                CommandSpec(
                    .remoteSync, summary: "fetch every secret under a folder into the cache now",
                    discussion: """
                        Fetch every secret under FOLDER (default: the remote's whole prefix), folders included,
                        into vaultd's cache now, so that all of them are served while the engine cannot be
                        reached. Progress on stderr when it is a terminal. A secret an access rule keeps from
                        vaultctl, or whose latest version is deleted, is counted and skipped.
                        """,
                    positionals: [remoteName, PositionalSpec("FOLDER", optional: true, help: "a folder of the remote, such as team/ (default: all)")]),
            ]),
        CommandSpec(
            .write, summary: "set one field of a remote secret (value on stdin)",
            discussion: """
                Set FIELD of the remote secret to the value read from stdin (or a prompt), keeping its
                other fields, as a new version. The write is check-and-set on the version this machine
                last saw: when someone else wrote a newer one meanwhile, nothing is written and the exit
                status is 6, naming both versions; --force writes over it.
                """,
            positionals: [PositionalSpec("REFERENCE", help: "kv://REMOTE/PATH?field=FIELD")],
            options: [
                .flag("force", help: "write over whatever version the engine has"),
                .flag("raw", help: "keep a trailing newline from stdin"),
            ]),
        CommandSpec(
            .history, summary: "a remote secret's versions",
            discussion: """
                List the versions the engine keeps of a remote secret: number, creation time, and whether
                deleted or destroyed. Read an older one with 'vaultctl read kv://REMOTE/PATH?version=N'.
                """,
            positionals: [remoteReference],
            options: [.flag("json", help: "print the versions as JSON")]),
    ]
}
