import Foundation
import VaultCore

/// The space's index, one sealed entry (`index`): for each item entry name, the sequence number
/// of its latest record, and the index's own sequence number, one more at every change. A pull
/// asks only the index's version when nothing changed, reads it when something did, and fetches
/// just the entries whose number moved; a device that saw index `seq` N refuses one below N
/// (a rollback), as it refuses an item record below the number the index (or it) saw.
public struct SpaceIndex: Codable, Sendable, Equatable {
    public var seq: Int
    public var entries: [String: Int]
    /// The device that wrote this version.
    public var writer: String

    public init(seq: Int = 0, entries: [String: Int] = [:], writer: String = "") {
        self.seq = seq
        self.entries = entries
        self.writer = writer
    }

    public static let name = "index"

    public func sealed(spaceID: String, key: SpaceKey) throws -> [String: String] {
        try SealedEntry.seal(secretJSON(), as: .index, name: Self.name, spaceID: spaceID, key: key)
    }

    public static func opening(_ fields: [String: String], spaceID: String, key: SpaceKey) throws -> SpaceIndex {
        let plaintext = try SealedEntry.open(fields, as: .index, name: name, spaceID: spaceID, key: key)
        guard let index = plaintext.withUnsafeBytes({ try? JSONDecoder().decode(SpaceIndex.self, from: Data($0)) }), (0...SpaceLimits.maxSeq).contains(index.seq),
              index.entries.values.allSatisfy({ (1...SpaceLimits.maxSeq).contains($0) }) else {
            throw SpaceError.tampered("the index holds what is not an index")
        }
        return index
    }
}

extension SpaceItemRecord {
    public func sealed(name: String, spaceID: String, key: SpaceKey) throws -> [String: String] {
        try SealedEntry.seal(encoded(), as: .item, name: name, spaceID: spaceID, key: key)
    }

    /// The record of entry `name`; also refused when its names do not hash to `name` (a record
    /// sealed for one item and put at another's entry by someone holding the key).
    public static func opening(_ fields: [String: String], name: String, spaceID: String, key: SpaceKey) throws -> SpaceItemRecord {
        let record = try decoding(SealedEntry.open(fields, as: .item, name: name, spaceID: spaceID, key: key))
        guard try key.entryName(service: record.service, account: record.account) == name else {
            throw SpaceError.tampered("entry \(name) holds the record of another item")
        }
        return record
    }
}
