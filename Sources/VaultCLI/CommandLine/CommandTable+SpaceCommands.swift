/// vaultctl's commands for spaces: items shared by this user's devices (or a small team's)
/// through a remote engine, end to end encrypted (`CommandTable.vaultctl`, after the remotes).
extension CommandTable {
    static let spaceName = PositionalSpec("NAME", help: "the space's name: letters, digits, '.', '_', '-'")
    static let spaceService = PositionalSpec("SERVICE", help: "the item's service")
    static let spaceAccount = PositionalSpec("ACCOUNT", help: "the item's account")
    static let spacePath = OptionSpec("path", value: "PATH", help: "the space's folder in the remote (default: vault-spaces/NAME)")
    static let spaceDevice = OptionSpec("device", value: "NAME", help: "this device's name as the others see it (default: the host name)")
    static let spaceTimeout = OptionSpec("timeout", value: "DURATION", kind: .duration(allowsZero: false), help: "how long to wait to be admitted (default: 10m)")

    static let spaceCommands: [CommandSpec] = [
        .group(
            "space", summary: "spaces: items shared by your devices through a remote, end to end encrypted",
            discussion: """
                A space is a set of items shared by the devices enrolled in it, kept in a remote engine
                (vaultctl remote add) that stores only ciphertext: it never sees a service, an account,
                a label or a secret. Each device keeps the items as ordinary local items (every door,
                rule and audit record applies) and syncs in the background: what changed here is pushed
                with check-and-set, what others wrote is pulled and checked. An item with access rules
                is never shared: its rules hold on its own device only.
                """,
            subcommands: [
                CommandSpec(
                    .spaceCreate, summary: "make a space in a remote, this device its first member",
                    discussion: """
                        Make a space at --path (default: vault-spaces/NAME) of the remote's KV v2 mount, with a
                        new random key, and this device as its first member. Nothing is shared until 'vaultctl
                        space add'; other devices join with 'vaultctl space join'.
                        """,
                    positionals: [spaceName], options: [OptionSpec("remote", value: "REMOTE", help: "the remote engine that keeps the space"), spacePath, spaceDevice]),
                CommandSpec(
                    .spaceJoin, summary: "ask to join a space; prints this device's fingerprint and waits",
                    discussion: """
                        Create this device's keys, list it in the space as waiting, print one line
                        'fingerprint: WORD WORD ...', and wait until a member admits it ('vaultctl space admit
                        NAME WORD ...' on that member, after comparing the words). Exit 5 when --timeout
                        passes first; running join again keeps waiting with the same keys.
                        """,
                    positionals: [spaceName],
                    options: [OptionSpec("remote", value: "REMOTE", help: "the remote engine that keeps the space"), spacePath, spaceDevice, spaceTimeout]),
                CommandSpec(
                    .spaceAdmit, summary: "admit the waiting device whose fingerprint is these words",
                    discussion: """
                        Admit the device waiting to join whose fingerprint is WORD ...: compare them with what
                        'vaultctl space join' printed on it first. It is given every key generation this device
                        holds, sealed to its key by this device's, so the engine can neither read nor replace it,
                        and an engine token made by this device's engine, handed over once (response-wrapped,
                        sealed the same way): the new device keeps it as remote 'space-NAME' and syncs through it.
                        The line printed says what was handed over, or why nothing was.
                        """,
                    positionals: [spaceName, PositionalSpec("WORD", variadic: true, help: "the words 'vaultctl space join' printed on the new device")]),
                CommandSpec(
                    .spaceAdd, summary: "share an item in the space",
                    discussion: """
                        Share the local item in the space: pushed at the next round, then kept in step on every
                        device. An item with access rules is refused: its rules hold on this device only.
                        """,
                    positionals: [spaceName, spaceService, spaceAccount]),
                CommandSpec(
                    .spaceRemove, summary: "take an item out of the space (it goes from the other devices)",
                    discussion: """
                        Stop sharing the item: a deletion goes to the other devices, which delete their copy;
                        this device keeps its item.
                        """,
                    positionals: [spaceName, spaceService, spaceAccount]),
                CommandSpec(
                    .spaceStatus, summary: "devices, pending pushes, last pull, conflicts",
                    discussion: """
                        How the space stands on this device: its devices, the items shared and those waiting to
                        be pushed, the last pull and push, conflict copies to settle, and entries the engine
                        served that were refused (tampered, rolled back).
                        """,
                    positionals: [spaceName], options: [.flag("json", help: "print the status as JSON")]),
                CommandSpec(
                    .spaceRemoveDevice, summary: "remove a device; the space key is rotated",
                    discussion: """
                        Remove a device: a new key generation goes to every other device, and every item is
                        written again under it at the next round, so the removed device's keys open nothing
                        written afterwards.
                        """,
                    positionals: [spaceName, PositionalSpec("DEVICE", help: "the device's id or name, as space status lists it")]),
                CommandSpec(
                    .spaceSync, summary: "run a sync round now",
                    discussion: """
                        Pull what the other devices wrote and push what changed here, now, instead of at the
                        next background round (every 20 s; vaultd --space-interval).
                        """,
                    positionals: [spaceName]),
                CommandSpec(
                    .spaceResolve, summary: "settle a conflict: keep the item, or take the conflict copy",
                    discussion: """
                        Two devices changed an item apart: the later edit is the item and the other is kept as
                        'ACCOUNT (conflict from DEVICE)'. --keep item deletes the copy; --keep copy makes its
                        value the item's (pushed at the next round) and deletes it.
                        """,
                    positionals: [spaceName, spaceService, spaceAccount],
                    options: [OptionSpec("keep", value: "WHICH", choices: ["item", "copy"], help: "item: the current value stays; copy: the conflict copy's value becomes the item's")]),
            ]),
    ]
}
