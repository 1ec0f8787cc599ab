import VaultCore

/// One version of a KV v2 secret as the engine answered it: its fields (each value a string; a
/// value of another JSON type kept as its JSON text) and its version's metadata.
public struct KVSecret: Codable, Sendable, Equatable {
    public var fields: [String: String]
    public var version: Int
    /// RFC 3339, as the engine wrote it.
    public var created: String

    public init(fields: [String: String], version: Int, created: String) {
        self.fields = fields
        self.version = version
        self.created = created
    }

    /// The fields as one JSON object, keys sorted (a reference without `field`).
    public var fieldsJSON: String { JSONText.object(fields) }

    /// The value of `field`, or the whole object when `field` is nil; throws naming the fields there are.
    public func value(_ field: String?, at reference: String) throws(VaultError) -> String {
        guard let field else { return fieldsJSON }
        guard let value = fields[field] else {
            let known = fields.keys.sorted().joined(separator: ", ")
            throw VaultError.absent("\(reference) has no field '\(field.replacingControlCharacters())'; its fields: \(known.isEmpty ? "none" : known)")
        }
        return value
    }
}

/// One version in a secret's history (`GET …/metadata/PATH`).
public struct KVVersion: Codable, Sendable, Equatable {
    public var version: Int
    public var created: String
    /// RFC 3339 when soft-deleted (empty: not deleted).
    public var deleted: String
    public var destroyed: Bool

    public init(version: Int, created: String, deleted: String, destroyed: Bool) {
        self.version = version
        self.created = created
        self.deleted = deleted
        self.destroyed = destroyed
    }
}

/// A secret's metadata: its current version and every version the engine keeps.
public struct KVMetadata: Sendable, Equatable {
    public var currentVersion: Int
    public var versions: [KVVersion]

    public init(currentVersion: Int, versions: [KVVersion]) {
        self.currentVersion = currentVersion
        self.versions = versions
    }
}
