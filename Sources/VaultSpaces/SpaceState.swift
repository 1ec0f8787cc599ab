import Foundation
import VaultCore
import VaultCrypto

/// What one device keeps about a space, as vault items of its own, encrypted like any item: the
/// space's record (`ItemKey.space`: where the space is, this device's key pair, the space keys it
/// was given, conflicts, refusals) and one small item per shared item (`ItemKey.spaceItem`: its
/// state as last synced, from which a round tells a local change, the item's `modified` moved,
/// from one to pull, the index's `seq` for it moved), so a space of any size fits the store's
/// size limit per item and sharing one item writes one small item.
public struct SpaceState: Codable, Sendable {
    public struct Tracked: Codable, Sendable, Equatable {
        public var service: String
        public var account: String
        /// Its entry's name under the generation it was last written with (empty: never written).
        public var entry: String
        /// The seq of the record this device last wrote or applied (0: never pushed).
        public var seq: Int
        /// The entry's KV version then (the check-and-set base of the next push; 0: none).
        public var version: Int
        /// The local item's `modified` right after that sync; nil while the item is absent.
        public var modified: Int64?
        public var deleted: Bool
        /// This device took the item out of the space: `seq` is the tombstone it wrote, and its
        /// local item is kept and no longer shared (not pushed, not counted). A later record
        /// from another device brings the item back into the space here.
        public var left: Bool

        /// The id of its own item: SHA-256 of the names, each followed by a zero byte, 32 hex digits.
        public var id: String { get throws { try SHA256.hash(Array(service.utf8) + [0] + Array(account.utf8) + [0]).prefix(16).lowercaseHex } }

        public init(service: String, account: String, entry: String = "", seq: Int = 0, version: Int = 0, modified: Int64? = nil,
                    deleted: Bool = false, left: Bool = false) {
            self.service = service
            self.account = account
            self.entry = entry
            self.seq = seq
            self.version = version
            self.modified = modified
            self.deleted = deleted
            self.left = left
        }

        enum CodingKeys: String, CodingKey { case service, account, entry, seq, version, modified, deleted, left }

        /// `left` is written only when true; records written before it existed read as shared.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(service: try container.decode(String.self, forKey: .service), account: try container.decode(String.self, forKey: .account),
                      entry: try container.decode(String.self, forKey: .entry), seq: try container.decode(Int.self, forKey: .seq),
                      version: try container.decode(Int.self, forKey: .version), modified: try container.decodeIfPresent(Int64.self, forKey: .modified),
                      deleted: try container.decode(Bool.self, forKey: .deleted), left: try container.decodeIfPresent(Bool.self, forKey: .left) ?? false)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(service, forKey: .service)
            try container.encode(account, forKey: .account)
            try container.encode(entry, forKey: .entry)
            try container.encode(seq, forKey: .seq)
            try container.encode(version, forKey: .version)
            try container.encodeIfPresent(modified, forKey: .modified)
            try container.encode(deleted, forKey: .deleted)
            if left { try container.encode(left, forKey: .left) }
        }
    }

    /// Two edits of one item made apart: `account` holds the later one; `copy` the other.
    public struct Conflict: Codable, Sendable, Equatable {
        public var service: String
        public var account: String
        public var copy: String
        /// The device whose edit became the copy, and when it was made (ms).
        public var device: String
        public var at: Int64

        public init(service: String, account: String, copy: String, device: String, at: Int64) {
            self.service = service
            self.account = account
            self.copy = copy
            self.device = device
            self.at = at
        }
    }

    public var name: String
    public var remote: String
    /// The space's folder under the remote's prefix.
    public var root: String
    public var spaceID: String
    public var deviceName: String
    /// This device's X25519 private key, base64.
    public var privateKey: String
    /// The space keys this device holds, base64 by generation (decimal).
    public var keys: [String: String] = [:]
    /// False while the device waits to be admitted.
    public var admitted = false
    public var items: [Tracked] = []
    /// The highest index seq seen (anything lower is a rollback), and the index's KV version then.
    public var indexSeq = 0
    public var indexVersion = 0
    public var lastPull: Double?
    public var lastPush: Double?
    public var conflicts: [Conflict] = []
    /// What the engine was refused for, newest last, at most `maximumProblems`.
    public var problems: [String] = []

    public static let maximumProblems = 20

    /// `items` are kept as items of their own, not in the space's record.
    enum CodingKeys: String, CodingKey {
        case name, remote, root, spaceID, deviceName, privateKey, keys, admitted, indexSeq, indexVersion, lastPull, lastPush, conflicts, problems
    }

    public init(name: String, remote: String, root: String, spaceID: String, deviceName: String, device: X25519KeyPair) {
        self.name = name
        self.remote = remote
        self.root = root
        self.spaceID = spaceID
        self.deviceName = deviceName
        privateKey = device.privateKey.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    public func deviceKeys() throws -> X25519KeyPair {
        guard let bytes = Data(base64Encoded: privateKey) else { throw SpaceError.unknownFormat("this device's key in its own record") }
        return try X25519KeyPair(privateKey: SecretBytes(bytes))
    }

    public func deviceID() throws -> String { try SpaceDevice.id(of: deviceKeys().publicKey) }

    public var generation: Int { keys.keys.compactMap(Int.init).max() ?? 0 }

    public func key(_ generation: Int) throws -> SpaceKey {
        guard let text = keys[String(generation)], let bytes = Data(base64Encoded: text) else { throw SpaceError.missingKey(generation) }
        return try SpaceKey(generation: generation, key: SecretBytes(bytes), spaceID: spaceID)
    }

    public mutating func hold(_ key: SpaceKey) {
        keys[String(key.generation)] = key.key.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    public mutating func report(_ problem: String) {
        problems.append(problem)
        if problems.count > Self.maximumProblems { problems.removeFirst(problems.count - Self.maximumProblems) }
    }

    /// The item's place in `items`, also when this device took it out of the space (`left`).
    public func tracked(_ service: String, _ account: String) -> Int? {
        items.firstIndex { $0.service == service && $0.account == account }
    }

    public func tracked(entry: String) -> Int? {
        items.firstIndex { $0.entry == entry }
    }

    public func encoded() throws -> SecretBytes { try secretJSON() }

    public static func decoding(_ secret: SecretBytes) throws -> SpaceState {
        guard let state = secret.withUnsafeBytes({ try? JSONDecoder().decode(SpaceState.self, from: Data($0)) }) else {
            throw SpaceError.unknownFormat("a space's record in the local store")
        }
        return state
    }
}

extension SpaceState.Tracked {
    public func encoded() throws -> SecretBytes { try secretJSON() }

    public static func decoding(_ secret: SecretBytes) throws -> SpaceState.Tracked {
        guard let tracked = secret.withUnsafeBytes({ try? JSONDecoder().decode(SpaceState.Tracked.self, from: Data($0)) }) else {
            throw SpaceError.unknownFormat("a shared item's state in the local store")
        }
        return tracked
    }
}
