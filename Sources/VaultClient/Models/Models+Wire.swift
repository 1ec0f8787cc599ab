#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore
internal import VaultProtocol

// The one place the client's models and the wire's bodies are converted, both ways: answers
// become models, and models encode as the documented JSON (`vaultctl … --json`) through the
// wire bodies, so the JSON shape is defined once, in VaultProtocol.

extension Date {
    init(wire text: String, field: String) throws(VaultClientError) {
        guard let milliseconds = Timestamp.milliseconds(rfc3339: text) else {
            throw .malformedAnswer("'\(field)' is not an RFC 3339 time")
        }
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    var wire: String { Timestamp.rfc3339(seconds: timeIntervalSince1970) }
}

extension ItemMetadata: Encodable {
    init(wire body: ItemBody) throws(VaultClientError) {
        guard let kind = ItemKind(rawValue: body.kind) else { throw .malformedAnswer("unknown item kind '\(body.kind)'") }
        try self.init(
            service: body.service, account: body.account, label: body.label, comment: body.comment, kind: kind,
            created: Date(wire: body.created, field: "created"), modified: Date(wire: body.modified, field: "modified"),
            session: body.session.map { (session) throws(VaultClientError) in try SessionInfo(wire: session) })
        duplicates = max(0, body.duplicates ?? 0)
    }

    func wire(secret: SecretBytes? = nil) -> ItemBody {
        var body = ItemBody(
            service: service, account: account, label: label, comment: comment, kind: kind.rawValue, created: created.wire,
            modified: modified.wire, secret: secret)
        body.session = session.map(\.wire)
        if duplicates > 0 { body.duplicates = duplicates }
        return body
    }

    public func encode(to encoder: Encoder) throws { try wire().encode(to: encoder) }
}

extension VaultItem: Encodable {
    public func encode(to encoder: Encoder) throws { try metadata.wire(secret: secret).encode(to: encoder) }
}

extension SessionInfo {
    init(wire body: SessionBody) throws(VaultClientError) {
        guard let provider = ProviderKind(rawValue: body.provider) else { throw .malformedAnswer("unknown provider '\(body.provider)'") }
        try self.init(
            provider: provider, user: body.user, expiresAt: body.expiresAt.map { (text) throws(VaultClientError) in try Date(wire: text, field: "expires_at") },
            needsSignIn: body.needsSignIn)
    }

    var wire: SessionBody {
        SessionBody(provider: provider.rawValue, user: user, expiresAt: expiresAt?.wire, needsSignIn: needsSignIn)
    }
}

extension AccessToken: Encodable {
    init(wire body: TokenBody) throws(VaultClientError) {
        try self.init(
            accessToken: body.accessToken, tokenType: body.tokenType,
            expiresAt: body.expiresAt.map { (text) throws(VaultClientError) in try Date(wire: text, field: "expires_at") }, account: body.account)
    }

    public func encode(to encoder: Encoder) throws {
        try TokenBody(accessToken: accessToken, tokenType: tokenType, expiresAt: expiresAt?.wire, account: account).encode(to: encoder)
    }
}

extension VaultStatus: Encodable {
    init(wire body: StatusBody) throws(VaultClientError) {
        guard let store = StoreKind(rawValue: body.backend) else { throw .malformedAnswer("unknown store '\(body.backend)'") }
        var sessions: [ItemMetadata] = []
        for session in body.sessions ?? [] { sessions.append(try ItemMetadata(wire: session)) }
        self.init(
            version: body.version, protocolVersion: body.protocolVersion, pid: body.pid, store: store, storeReason: body.backendReason,
            isLocked: body.locked, lockReason: body.lockReason, location: body.location, exists: body.exists, itemCount: body.items,
            socket: body.socket, sessions: sessions)
        unaddressableCount = max(0, body.unaddressable ?? 0)
        duplicateCount = max(0, body.duplicates ?? 0)
        (secretServiceProvider, secretServiceProviderReason) = (body.secretServiceProvider, body.secretServiceProviderReason)
        remotes = (body.remotes ?? []).map(RemoteInfo.init(wire:))
        spaces = (body.spaces ?? []).map { SpaceInfo(wire: $0, message: nil) }
    }

    public func encode(to encoder: Encoder) throws {
        var body = StatusBody(
            version: version, protocolVersion: protocolVersion, pid: pid, backend: store.rawValue, backendReason: storeReason,
            locked: isLocked, location: location, exists: exists, items: itemCount, socket: socket, lockReason: lockReason,
            sessions: isLocked ? nil : sessions.map { $0.wire() }
        )
        if unaddressableCount > 0 { body.unaddressable = unaddressableCount }
        if duplicateCount > 0 { body.duplicates = duplicateCount }
        (body.secretServiceProvider, body.secretServiceProviderReason) = (secretServiceProvider, secretServiceProviderReason)
        if !remotes.isEmpty { body.remotes = remotes.map(\.wire) }
        if !spaces.isEmpty { body.spaces = spaces.map(\.wire) }
        try body.encode(to: encoder)
    }
}

extension MigrationReport: Encodable {
    init(wire body: MigrationBody) throws(VaultClientError) {
        guard let from = StoreKind(rawValue: body.from), let to = StoreKind(rawValue: body.to) else {
            throw .malformedAnswer("unknown store in the migration report")
        }
        var conflicts: [ItemKey] = []
        for conflict in body.conflicts {
            guard let key = try? ItemKey(service: conflict.service, account: conflict.account) else { throw .malformedAnswer("an invalid item name") }
            conflicts.append(key)
        }
        self.init(from: from, to: to, copied: body.copied, alreadyPresent: body.alreadyPresent, removed: body.removed, conflicts: conflicts)
        for key in body.collapsed ?? [] {
            guard let key = try? ItemKey(service: key.service, account: key.account) else { throw .malformedAnswer("an invalid item name") }
            collapsed.append(key)
        }
        for item in body.leftInPlace ?? [] { leftInPlace.append(try UnaddressableItem(wire: item)) }
        recordedIn = body.recordedIn
    }

    public func encode(to encoder: Encoder) throws {
        var body = MigrationBody(
            from: from.rawValue, to: to.rawValue, copied: copied, alreadyPresent: alreadyPresent, removed: removed,
            conflicts: conflicts.map { KeyBody(service: $0.service, account: $0.account) })
        if !collapsed.isEmpty { body.collapsed = collapsed.map { KeyBody(service: $0.service, account: $0.account) } }
        if !leftInPlace.isEmpty { body.leftInPlace = leftInPlace.map(\.wire) }
        body.recordedIn = recordedIn
        try body.encode(to: encoder)
    }
}

extension UnaddressableItem {
    init(wire body: UnaddressableBody) throws(VaultClientError) {
        let modified = try Date(wire: body.modified, field: "modified")
        self.init(service: body.service, account: body.account, label: body.label, reason: body.reason,
                  modified: Int64((modified.timeIntervalSince1970 * 1000).rounded()))
    }

    var wire: UnaddressableBody {
        UnaddressableBody(service: service, account: account, label: label, reason: reason, modified: Timestamp.rfc3339(milliseconds: modified))
    }
}

extension DoctorReport: Encodable {
    init(wire body: DoctorBody) throws(VaultClientError) {
        guard let selected = StoreKind(rawValue: body.selected) else { throw .malformedAnswer("unknown store '\(body.selected)'") }
        var checks: [Check] = []
        for check in body.checks {
            guard let store = StoreKind(rawValue: check.store) else { throw .malformedAnswer("unknown store '\(check.store)'") }
            checks.append(Check(store: store, name: check.name, ok: check.ok, detail: check.detail))
        }
        self.init(selected: selected, selectedReason: body.selectedReason, selectedWorks: body.selectedWorks, checks: checks)
        remotes = (body.remotes ?? []).map(RemoteInfo.init(wire:))
        spaces = (body.spaces ?? []).map { SpaceInfo(wire: $0, message: nil) }
    }

    public func encode(to encoder: Encoder) throws {
        var body = DoctorBody(
            selected: selected.rawValue, selectedReason: selectedReason, selectedWorks: selectedWorks,
            checks: checks.map { CheckBody(store: $0.store.rawValue, name: $0.name, ok: $0.ok, detail: $0.detail) })
        if !remotes.isEmpty { body.remotes = remotes.map(\.wire) }
        if !spaces.isEmpty { body.spaces = spaces.map(\.wire) }
        try body.encode(to: encoder)
    }
}

extension DeviceCodes {
    init(wire body: DeviceBody) throws(VaultClientError) {
        guard let deviceCode = body.deviceCode, let userCode = body.userCode else { throw .malformedAnswer("no device codes") }
        self.init(
            deviceCode: deviceCode, userCode: userCode, verificationURI: body.verificationURI ?? "the verification page",
            verificationURIComplete: body.verificationURIComplete, expiresIn: body.expiresIn ?? 600, interval: body.interval ?? 5)
    }
}

extension ForeignItem {
    init(wire body: ForeignItemBody) throws(VaultClientError) {
        self.init(schemaName: body.schema, attributes: body.attributes, label: body.label,
                  created: try Self.milliseconds(body.created, "created"), modified: try Self.milliseconds(body.modified, "modified"))
    }

    /// `foreign_get`'s item: the schema's name in `service`, the attributes beside.
    init(wire body: ItemBody) throws(VaultClientError) {
        guard let attributes = body.attributes else { throw .malformedAnswer("the other helper's item has no attributes") }
        self.init(schemaName: body.service, attributes: attributes, label: body.label,
                  created: try Self.milliseconds(body.created, "created"), modified: try Self.milliseconds(body.modified, "modified"))
    }

    private static func milliseconds(_ text: String, _ field: String) throws(VaultClientError) -> Int64 {
        guard let milliseconds = Timestamp.milliseconds(rfc3339: text) else { throw .malformedAnswer("'\(field)' is not an RFC 3339 time") }
        return milliseconds
    }
}
