import VaultCore
import VaultRemotes
import VaultSpaces

/// A space's entries on its engine, addressed relative to the space's root (docs/file-format.md,
/// "Spaces on the engine"), for one round under one token. Everything read is still hostile: the
/// callers open and check it (VaultSpaces).
struct SpaceEngine {
    let client: EngineClient
    let token: EngineToken
    let root: String

    static let space = "space"
    static let index = "index"
    static func device(_ id: String) -> String { "devices/" + id }
    static func keys(_ id: String) -> String { "keys/" + id }
    static func item(_ name: String) -> String { "items/" + name }
    static func handover(_ id: String) -> String { "handover/" + id }
    static func member(_ id: String, generation: Int) -> String { "members/" + SpaceMembership.name(id, generation: generation) }

    func path(_ entry: String) throws(EngineError) -> KVPath {
        do {
            return try KVPath(root + "/" + entry, folder: entry.hasSuffix("/"))
        } catch {
            throw .malformed("the space's entry '\(entry)' is not a path under \(root)")
        }
    }

    /// The latest version of `entry`; nil when there is none (never written, or deleted).
    func read(_ entry: String) throws(EngineError) -> KVSecret? {
        do {
            return try client.read(path(entry), token: token)
        } catch .notFound {
            return nil
        }
    }

    /// Writes `fields` with check-and-set on `cas` (0: only if new); the version written.
    func write(_ entry: String, _ fields: [String: String], cas: Int?) throws(EngineError) -> Int {
        try client.write(path(entry), fields: fields, cas: cas, token: token)
    }

    /// The entry's current version (0: none), without reading it.
    func version(_ entry: String) throws(EngineError) -> Int {
        do {
            return try client.metadata(path(entry), token: token).currentVersion
        } catch .notFound {
            return 0
        }
    }

    func delete(_ entry: String) throws(EngineError) {
        try client.delete(path(entry), token: token)
    }

    /// The names in the folder `folder` (ending in `/`), folders left out.
    func names(in folder: String) throws(EngineError) -> [String] {
        try client.list(path(folder), token: token).filter { !$0.hasSuffix("/") }
    }
}
