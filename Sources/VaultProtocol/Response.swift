/// One response line: `{"id":…,"ok":true,"result":{…}}` or `{"id":…,"ok":false,"error":{…}}`.
public struct Response: Codable, Sendable {
    public var id: RequestID
    public var ok: Bool
    public var result: ResultBody?
    public var error: ErrorBody?

    public static func success(_ id: RequestID?, _ result: ResultBody = ResultBody()) -> Response {
        Response(id: id ?? .null, ok: true, result: result, error: nil)
    }

    public static func failure(_ id: RequestID?, code: String, message: String) -> Response {
        Response(id: id ?? .null, ok: false, result: nil, error: ErrorBody(code: code, message: message))
    }

    public struct ErrorBody: Codable, Sendable, Equatable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }
}

/// The union of every operation's result; each operation fills in its own fields.
public struct ResultBody: Codable, Sendable {
    // get / add / set: the item.
    public var item: ItemBody?
    // list
    public var items: [ItemBody]?
    // status
    public var status: StatusBody?

    public init(item: ItemBody? = nil, items: [ItemBody]? = nil, status: StatusBody? = nil) {
        self.item = item
        self.items = items
        self.status = status
    }
}

/// An item on the wire. `secret` (UTF-8 text) or `secret_b64` (any bytes) only in `get`.
public struct ItemBody: Codable, Sendable, Equatable {
    public var service: String
    public var account: String
    public var label: String
    public var comment: String
    public var kind: String
    /// RFC 3339 UTC timestamps with milliseconds.
    public var created: String
    public var modified: String
    public var secret: String?
    public var secretBase64: String?

    enum CodingKeys: String, CodingKey {
        case service, account, label, comment, kind, created, modified, secret
        case secretBase64 = "secret_b64"
    }

    public init(
        service: String, account: String, label: String, comment: String, kind: String, created: String, modified: String,
        secret: String? = nil, secretBase64: String? = nil
    ) {
        self.service = service
        self.account = account
        self.label = label
        self.comment = comment
        self.kind = kind
        self.created = created
        self.modified = modified
        self.secret = secret
        self.secretBase64 = secretBase64
    }
}

public struct StatusBody: Codable, Sendable, Equatable {
    public var version: String
    public var protocolVersion: Int
    public var pid: Int32
    public var backend: String
    /// Why this backend was chosen, for humans.
    public var backendReason: String
    public var locked: Bool
    /// Where the store keeps its data (file path, collection).
    public var location: String
    /// False when the file store has no vault yet: the first unlock creates it.
    public var exists: Bool
    public var items: Int?
    public var socket: String
    /// When locked, what went wrong with the last unlock attempt (never a secret).
    public var lockReason: String?

    enum CodingKeys: String, CodingKey {
        case version, pid, backend, locked, location, exists, items, socket
        case protocolVersion = "protocol"
        case backendReason = "backend_reason"
        case lockReason = "lock_reason"
    }

    public init(
        version: String, protocolVersion: Int, pid: Int32, backend: String, backendReason: String, locked: Bool,
        location: String, exists: Bool, items: Int?, socket: String, lockReason: String?
    ) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.backend = backend
        self.backendReason = backendReason
        self.locked = locked
        self.location = location
        self.exists = exists
        self.items = items
        self.socket = socket
        self.lockReason = lockReason
    }
}
