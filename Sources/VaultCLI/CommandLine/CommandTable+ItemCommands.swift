/// vaultctl's commands for items and the vault itself: get, set, add, delete, list, status,
/// lock, unlock, passwd (`CommandTable.vaultctl`, in this order).
extension CommandTable {
    static let itemCommands: [CommandSpec] = [
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
            .delete, aliases: ["rm"], summary: "remove an item (or soft-delete a remote secret)",
            discussion: """
                Remove the item. 'delete kv://REMOTE/PATH' deletes a remote secret's latest version (KV
                version 2's soft delete, which 'bao kv undelete' reverses).
                """,
            positionals: [item[0], PositionalSpec("ACCOUNT", optional: true, help: "the item's account (none for kv://REMOTE/PATH)")]),
        CommandSpec(
            .list, aliases: ["ls"], summary: "names and metadata, never secrets",
            discussion: """
                List services, accounts, labels, kinds, modification times and, for sign-in sessions, the
                provider, user and expiry; never secrets or tokens. A table on a terminal, tab-separated
                lines without a header otherwise.
                """,
            positionals: [PositionalSpec("SERVICE", optional: true, completion: .services, help: "only this service's items, or kv://REMOTE/FOLDER/ for a remote's names")],
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
    ]
}
