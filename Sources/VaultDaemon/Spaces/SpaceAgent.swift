import Foundation
import VaultCore
import VaultCrypto
import VaultRemotes
import VaultSpaces
import VaultSystem

/// vaultd's side of spaces (issue 34): items shared by this user's devices, or a small team's,
/// through a remote engine that sees only ciphertext (VaultSpaces, docs/file-format.md). It
/// keeps each space's state as a vault item of its own (`SpaceState`), enrols devices, and runs
/// sync rounds: pull what others wrote (checked against rollback and tampering), push what
/// changed here with check-and-set, keep the losing edit of a conflict as a visible copy. A
/// space's items are ordinary local items: every door, rule and audit record applies to them.
///
/// Every method blocks on the network or the store: call from vaultd's connection and timer
/// threads, never the cooperative pool.
final class SpaceAgent: Sendable {
    let store: ActiveStore
    let remotes: RemoteAgent
    let changes: ItemChangeFeed
    let logger: Logger
    let clock: @Sendable () -> Double
    /// Whether an item has access rules (or every item needs approval): such an item is never
    /// shared, so its rules are not walked around on another device.
    let isGuarded: @Sendable (ItemKey) -> Bool
    /// One round (or enrolment step) at a time per vaultd: a round reads, then writes the state.
    let rounds = AdaptiveLock<Void>(())
    /// Each space's shared items as stored (`ItemKey.spaceItem`), by their names: read once, kept in step
    /// by `save`, emptied before the store locks.
    private let trackedItems = AdaptiveLock<[String: [String: SpaceState.Tracked]]>([:])
    /// Whether a round is already due from `nudge`, and the queue it runs on.
    private let nudged = AdaptiveLock<Bool>(false)
    private let nudges = DispatchQueue(label: "vaultd.space-nudge")

    /// Where a space lives under its remote's prefix unless `--path` says otherwise.
    static let defaultFolder = "vault-spaces"

    init(store: ActiveStore, remotes: RemoteAgent, changes: ItemChangeFeed, logger: Logger, isGuarded: @escaping @Sendable (ItemKey) -> Bool,
         clock: @escaping @Sendable () -> Double = { Double(Clock.nowMilliseconds()) / 1000 }) {
        self.store = store
        self.isGuarded = isGuarded
        self.remotes = remotes
        self.changes = changes
        self.logger = logger
        self.clock = clock
        store.beforeLocking { [trackedItems] _ in trackedItems.withLock { $0.removeAll() } }
    }

    static func checkName(_ name: String) throws {
        if let problem = RemoteName.problem(with: name, kind: "space") { throw VaultError.invalidInput(problem) }
    }

    // MARK: State

    func state(_ name: String) throws -> SpaceState {
        var state = try record(name)
        state.items = try tracked(name).values.sorted { ($0.service, $0.account) < ($1.service, $1.account) }
        return state
    }

    /// The space's record without its shared items (`state` reads those too).
    func record(_ name: String) throws -> SpaceState {
        try Self.checkName(name)
        do {
            return try SpaceState.decoding(store.read { try $0.get(.space(name)).secret })
        } catch VaultError.notFound {
            throw VaultError.absent("no space named '\(name)' on this device: create it with 'vaultctl space create \(name) --remote REMOTE', or join it with 'vaultctl space join \(name) --remote REMOTE'")
        }
    }

    /// Starts sharing one item: its record written alone (nothing when already shared).
    func track(_ item: SpaceState.Tracked, in name: String) throws {
        var items = try tracked(name)
        var item = item
        if let known = items[Self.names(item)] {
            guard known.left else { return }
            // Shared again after it was taken out: its next record follows the tombstone.
            item = SpaceState.Tracked(service: known.service, account: known.account, entry: known.entry, seq: known.seq, version: known.version)
        }
        _ = try store.perform { try $0.set(.spaceItem(name, try item.id), secret: try item.encoded(), changes: ItemChanges(kind: .access)) }
        items[Self.names(item)] = item
        trackedItems.withLock { $0[name] = items }
    }

    /// How many items the space shares here (those this device took out are not counted).
    func trackedCount(_ name: String) throws -> Int { try tracked(name).values.count { !$0.left } }

    /// Saves the space's record, and of its shared items those that changed (or went).
    func save(_ state: SpaceState) throws {
        let stored = try tracked(state.name)
        var current: [String: SpaceState.Tracked] = [:]
        current.reserveCapacity(state.items.count)
        for item in state.items { current[Self.names(item)] = item }
        try store.perform { store in
            _ = try store.set(.space(state.name), secret: try state.encoded(), changes: ItemChanges(label: "space \(state.name)", kind: .access))
            for (names, item) in current where stored[names] != item {
                _ = try store.set(.spaceItem(state.name, try item.id), secret: try item.encoded(), changes: ItemChanges(kind: .access))
            }
            for (names, item) in stored where current[names] == nil { try? store.delete(.spaceItem(state.name, try item.id)) }
        }
        trackedItems.withLock { $0[state.name] = current }
    }

    /// A shared item's names as one key (a zero byte between them) for the in-memory maps.
    static func names(_ item: SpaceState.Tracked) -> String { names(item.service, item.account) }
    static func names(_ service: String, _ account: String) -> String { service + "\u{0}" + account }

    /// The shared items of space `name` as stored, by `names`.
    private func tracked(_ name: String) throws -> [String: SpaceState.Tracked] {
        if let known = trackedItems.withLock({ $0[name] }) { return known }
        let prefix = name + "/"
        let items = try store.read { store -> [String: SpaceState.Tracked] in
            var items: [String: SpaceState.Tracked] = [:]
            for info in try store.list(service: ItemKey.spaceItemsService) where info.key.account.hasPrefix(prefix) {
                let item = try SpaceState.Tracked.decoding(store.get(info.key).secret)
                items[Self.names(item)] = item
            }
            return items
        }
        trackedItems.withLock { $0[name] = items }
        return items
    }

    /// Every space this device is in or joining; records that cannot be read are logged.
    func states() -> [SpaceState] {
        let infos = (try? store.read { try $0.list(service: ItemKey.spacesService) }) ?? []
        return infos.compactMap { info in
            do { return try state(info.key.account) } catch {
                logger.warning("space '\(info.key.account)': its record cannot be read: \(error)")
                return nil
            }
        }
    }

    /// Runs `body` against the space's entries with a live token of its remote.
    func engine<R>(_ remote: String, root: String, doing what: String, _ body: (SpaceEngine) throws(EngineError) -> R) throws -> R {
        try remotes.withToken(try RemoteName(remote), doing: what) { client, token throws(EngineError) in
            try body(SpaceEngine(client: client, token: token, root: root))
        }
    }

    /// The space's devices by id, each entry checked (one whose key does not give its id is
    /// left out and reported in `refused`).
    static func devices(_ engine: SpaceEngine) throws(EngineError) -> (devices: [String: SpaceDevice], refused: [String]) {
        var devices: [String: SpaceDevice] = [:], refused: [String] = []
        for id in try engine.names(in: "devices/") {
            guard let entry = try engine.read(SpaceEngine.device(id)) else { continue }
            do { devices[id] = try SpaceDevice(fields: entry.fields, id: id) } catch { refused.append("\(error)") }
        }
        return (devices, refused)
    }

    /// A local item changed: a round of every space runs about a second later (changes within
    /// that second share it), so it reaches the other devices without waiting for the timer.
    func nudge() {
        // The agent's own writes (a pulled record applied) are no change to push.
        guard Thread.current.threadDictionary[Self.applyingKey] == nil else { return }
        guard nudged.withLock({ due in
            defer { due = true }
            return !due
        }) else { return }
        nudges.asyncAfter(deadline: .now() + 1) { [self] in
            nudged.withLock { $0 = false }
            syncAll()
        }
    }

    static let applyingKey = "vault.space.applying"

    /// Runs `body` (which writes local items from the space) so that its changes nudge no round.
    func applying<R>(_ body: () throws -> R) rethrows -> R {
        Thread.current.threadDictionary[Self.applyingKey] = true
        defer { Thread.current.threadDictionary[Self.applyingKey] = nil }
        return try body()
    }

    // MARK: Local items

    /// Every local item's info (no secret read), by `names`: what a round or a status compares
    /// its shared items with, in one listing.
    func localInfos() -> [String: ItemInfo] {
        let infos = (try? store.read { try $0.list(service: nil) }) ?? []
        var byNames: [String: ItemInfo] = [:]
        byNames.reserveCapacity(infos.count)
        for info in infos { byNames[Self.names(info.key.service, info.key.account)] = info }
        return byNames
    }

    func localItem(_ service: String, _ account: String) -> Item? {
        guard let key = try? ItemKey(service: service, account: account) else { return nil }
        return try? store.read { try $0.get(key) }
    }
}
