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
    // migrate
    public var migration: MigrationBody?
    // doctor
    public var doctor: DoctorBody?
    // token
    public var token: TokenBody?
    // signup, reset_password, logout: what happened, for people
    public var message: String?
    // device_start: the codes to show; device_poll: "pending" or "slow_down" until approved
    public var device: DeviceBody?

    public init(
        item: ItemBody? = nil, items: [ItemBody]? = nil, status: StatusBody? = nil, migration: MigrationBody? = nil,
        doctor: DoctorBody? = nil, token: TokenBody? = nil, message: String? = nil, device: DeviceBody? = nil
    ) {
        self.device = device
        self.token = token
        self.message = message
        self.item = item
        self.items = items
        self.status = status
        self.migration = migration
        self.doctor = doctor
    }
}

/// A valid access token. `expires_at` is RFC 3339 UTC, absent when the provider gave no lifetime.
public struct TokenBody: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    public var expiresAt: String?
    public var account: String

    enum CodingKeys: String, CodingKey {
        case account
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
    }

    public init(accessToken: String, tokenType: String, expiresAt: String?, account: String) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.account = account
    }
}

/// What `migrate` did. `conflicts` are keys present in both stores with different secrets: both kept.
public struct MigrationBody: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var copied: Int
    public var alreadyPresent: Int
    public var removed: Int
    public var conflicts: [KeyBody]

    enum CodingKeys: String, CodingKey {
        case from, to, copied, removed, conflicts
        case alreadyPresent = "already_present"
    }

    public init(from: String, to: String, copied: Int, alreadyPresent: Int, removed: Int, conflicts: [KeyBody]) {
        self.from = from
        self.to = to
        self.copied = copied
        self.alreadyPresent = alreadyPresent
        self.removed = removed
        self.conflicts = conflicts
    }
}

public struct KeyBody: Codable, Sendable, Equatable {
    public var service: String
    public var account: String

    public init(service: String, account: String) {
        self.service = service
        self.account = account
    }
}

/// `doctor`: every check of every store, and whether the store in use works.
public struct DoctorBody: Codable, Sendable, Equatable {
    public var selected: String
    public var selectedReason: String
    public var selectedWorks: Bool
    public var checks: [CheckBody]

    enum CodingKeys: String, CodingKey {
        case selected, checks
        case selectedReason = "selected_reason"
        case selectedWorks = "selected_works"
    }

    public init(selected: String, selectedReason: String, selectedWorks: Bool, checks: [CheckBody]) {
        self.selected = selected
        self.selectedReason = selectedReason
        self.selectedWorks = selectedWorks
        self.checks = checks
    }
}

public struct CheckBody: Codable, Sendable, Equatable {
    /// "secret-service" or "file".
    public var store: String
    public var name: String
    public var ok: Bool
    public var detail: String

    public init(store: String, name: String, ok: Bool, detail: String) {
        self.store = store
        self.name = name
        self.ok = ok
        self.detail = detail
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
    /// For sign-in sessions (`list`, `status`): who, with which provider, until when. No tokens.
    public var session: SessionBody?

    enum CodingKeys: String, CodingKey {
        case service, account, label, comment, kind, created, modified, secret, session
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

/// The device authorization grant's state (RFC 8628).
public struct DeviceBody: Codable, Sendable, Equatable {
    public var deviceCode: String?
    public var userCode: String?
    public var verificationURI: String?
    public var verificationURIComplete: String?
    public var expiresIn: Double?
    public var interval: Double?
    /// `device_poll`: "pending" or "slow_down".
    public var state: String?

    enum CodingKeys: String, CodingKey {
        case interval, state
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
    }

    public init(deviceCode: String? = nil, userCode: String? = nil, verificationURI: String? = nil, verificationURIComplete: String? = nil,
                expiresIn: Double? = nil, interval: Double? = nil, state: String? = nil) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
        self.state = state
    }
}

/// A session's non-secret details.
public struct SessionBody: Codable, Sendable, Equatable {
    public var provider: String
    public var user: String?
    /// RFC 3339 UTC; absent when the provider gave no lifetime.
    public var expiresAt: String?
    public var needsSignIn: Bool

    enum CodingKeys: String, CodingKey {
        case provider, user
        case expiresAt = "expires_at"
        case needsSignIn = "needs_sign_in"
    }

    public init(provider: String, user: String?, expiresAt: String?, needsSignIn: Bool) {
        self.provider = provider
        self.user = user
        self.expiresAt = expiresAt
        self.needsSignIn = needsSignIn
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
    /// The sign-in sessions kept, with their details (when unlocked).
    public var sessions: [ItemBody]?

    enum CodingKeys: String, CodingKey {
        case version, pid, backend, locked, location, exists, items, socket
        case protocolVersion = "protocol"
        case backendReason = "backend_reason"
        case lockReason = "lock_reason"
        case sessions
    }

    public init(
        version: String, protocolVersion: Int, pid: Int32, backend: String, backendReason: String, locked: Bool,
        location: String, exists: Bool, items: Int?, socket: String, lockReason: String?, sessions: [ItemBody]? = nil
    ) {
        self.sessions = sessions
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
