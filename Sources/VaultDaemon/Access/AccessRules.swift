import Foundation
import VaultCore

/// Every access rule of the vault, kept as one JSON document in the item `ItemKey.accessRules`
/// (kind `access`), so it is encrypted with the item metadata in the file store and migrates
/// with the items. An item without an entry is given to any caller of the user.
struct AccessRules: Codable, Sendable, Equatable {
    /// One program allowed to read an item: its path and the SHA-256 of its content when
    /// allowed; for a script, the interpreter it must run under, pinned the same way.
    struct Program: Codable, Sendable, Equatable {
        var path: String
        var sha256: String
        /// When the rule was written (RFC 3339).
        var added: String
        var interpreter: Interpreter?

        struct Interpreter: Codable, Sendable, Equatable {
            var path: String
            var sha256: String
        }

        init(path: String, sha256: String, added: String, interpreter: Interpreter? = nil) {
            (self.path, self.sha256, self.added, self.interpreter) = (path, sha256, added, interpreter)
        }

        init(_ program: CallerIdentity.Program, added: String) {
            self.init(path: program.path, sha256: program.hash, added: added,
                      interpreter: program.interpreter.map { Interpreter(path: $0.path, sha256: $0.hash) })
        }

        /// Whether `caller` runs this program: for a script, this script under this interpreter.
        func admits(_ caller: CallerIdentity) -> Bool {
            guard let interpreter else { return caller.executable == path && caller.executableHash == sha256 }
            return caller.script == path && caller.scriptHash == sha256 && caller.executable == interpreter.path && caller.executableHash == interpreter.sha256
        }

        /// Whether `caller` runs a program at this rule's paths, whatever their content.
        func namesThePathsOf(_ caller: CallerIdentity) -> Bool {
            guard let interpreter else { return caller.executable == path }
            return caller.script == path && caller.executable == interpreter.path
        }
    }

    /// The rules of one item.
    struct Entry: Codable, Sendable, Equatable {
        var service: String
        var account: String
        /// Each access needs an approver's answer unless a program below (or a timed grant) matches.
        var confirm: Bool
        var allow: [Program]

        var key: ItemKey? { try? ItemKey(service: service, account: account) }
        var isEmpty: Bool { !confirm && allow.isEmpty }
    }

    /// What the rules say about one caller.
    enum Verdict: Equatable {
        /// The item has no rules.
        case unguarded
        /// A program of the caller is allowed (its path).
        case allowed(String)
        /// The caller runs a program at an allowed path whose content (or whose interpreter's)
        /// differs from when it was allowed.
        case changed(String)
        /// The caller runs an allowed script, but the rule pins no interpreter (written before
        /// vault pinned them): allowed again, it matches.
        case interpreterNotPinned(String)
        /// Code other than the allowed program's may run in the caller (`CodeInjection`).
        case injected(String)
        /// No rule names the caller's programs.
        case notAllowed
    }

    var version = 1
    var items: [Entry] = []

    static let maxBytes = 256 * 1024

    func entry(_ key: ItemKey) -> Entry? {
        items.first { $0.service == key.service && $0.account == key.account }
    }

    /// Replaces (or, when it became empty, removes) the entry of `key`.
    mutating func update(_ key: ItemKey, _ change: (inout Entry) -> Void) {
        var entry = entry(key) ?? Entry(service: key.service, account: key.account, confirm: false, allow: [])
        change(&entry)
        items.removeAll { $0.service == key.service && $0.account == key.account }
        if !entry.isEmpty { items.append(entry) }
        items.sort { ($0.service, $0.account) < ($1.service, $1.account) }
    }

    /// Gives the rules of `key` to `target` (replacing any it had), or drops them when `target`
    /// is nil: for an item moved to another key, or deleted, so no rule stays behind on a key
    /// its item left.
    mutating func move(_ key: ItemKey, to target: ItemKey?) {
        let moved = entry(key)
        update(key) { $0 = Entry(service: key.service, account: key.account, confirm: false, allow: []) }
        guard let target else { return }
        update(target) { entry in
            entry.confirm = moved?.confirm ?? false
            entry.allow = moved?.allow ?? []
        }
    }

    func verdict(for key: ItemKey, caller: CallerIdentity) -> Verdict {
        guard let entry = entry(key), !entry.allow.isEmpty || entry.confirm else { return .unguarded }
        if let injection = caller.injection { return .injected(injection) }
        if let rule = entry.allow.first(where: { $0.admits(caller) }) { return .allowed(rule.path) }
        if let changed = entry.allow.first(where: { $0.namesThePathsOf(caller) }) { return .changed(changed.path) }
        if let old = entry.allow.first(where: { $0.interpreter == nil && $0.path == caller.script }) { return .interpreterNotPinned(old.path) }
        return .notAllowed
    }

    // MARK: Storage

    static func load(from store: any VaultStore) throws -> AccessRules {
        let item: Item
        do {
            item = try store.get(.accessRules)
        } catch VaultError.notFound {
            return AccessRules()
        }
        guard let rules = try? item.secret.withUnsafeBytes({ try JSONDecoder().decode(AccessRules.self, from: Data($0)) }) else {
            throw VaultError.internal("the access rules stored in the vault (item \(ItemKey.accessRules)) cannot be read; run 'vaultctl rules' after fixing or deleting them with a newer vault")
        }
        return rules
    }

    /// `move(_:to:)` on the rules stored in `store`, written back only when either key had any.
    static func move(_ key: ItemKey, to target: ItemKey?, in store: any VaultStore) throws {
        var rules = try load(from: store)
        guard rules.entry(key) != nil || target.map({ rules.entry($0) != nil }) == true else { return }
        rules.move(key, to: target)
        try rules.save(to: store)
    }

    func save(to store: any VaultStore) throws {
        if items.isEmpty {
            do { try store.delete(.accessRules) } catch VaultError.notFound {}
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = try encoder.encode(self)
        guard bytes.count <= Self.maxBytes else { throw VaultError.tooLarge("the access rules would exceed \(Self.maxBytes / 1024) KiB; remove some with 'vaultctl disallow'") }
        _ = try store.set(.accessRules, secret: SecretBytes(Array(bytes)), changes: ItemChanges(label: "vault access rules", kind: .access))
    }
}
