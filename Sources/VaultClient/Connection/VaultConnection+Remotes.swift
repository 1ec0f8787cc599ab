#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore
internal import VaultProtocol

/// Remote engines and their secrets (`kv://REMOTE/PATH`).
extension VaultConnection {
    /// Adds a remote; vaultd logs in with `secret` (a token, an AppRole secret id, a password;
    /// nil for JWT) before keeping it.
    @discardableResult
    public func addRemote(_ remote: RemoteAddition, secret: SecretBytes?) throws(VaultClientError) -> RemoteInfo {
        let request = RemoteAddRequest(
            name: remote.name, url: remote.url, mount: remote.mount, prefix: remote.prefix, caFile: remote.caFile, maxAge: remote.maxAge,
            auth: remote.auth, roleID: remote.roleID, username: remote.username, role: remote.role, jwtFile: remote.jwtFile, secret: secret)
        return try oneRemote(perform(.remoteAdd(request)))
    }

    public func remotes() throws(VaultClientError) -> [RemoteInfo] {
        (try perform(.remoteList).remotes ?? []).map(RemoteInfo.init(wire:))
    }

    /// Forgets the remote and its cached secrets; vaultd's message.
    public func removeRemote(_ name: String) throws(VaultClientError) -> String {
        try perform(.remoteRemove(RemoteNameRequest(name: name))).message ?? "removed remote '\(name)'"
    }

    /// Logs in again, with a new credential when `secret` is given.
    @discardableResult
    public func loginRemote(_ name: String, secret: SecretBytes?) throws(VaultClientError) -> RemoteInfo {
        try oneRemote(perform(.remoteLogin(RemoteNameRequest(name: name, secret: secret))))
    }

    /// A remote secret's field (nil: every field as one JSON object), or an older `version`;
    /// `refresh` asks the engine even when the cached copy is fresh.
    public func readRemote(remote: String, path: String, field: String? = nil, version: Int? = nil, refresh: Bool = false) throws(VaultClientError) -> RemoteSecret {
        let result = try perform(.kvGet(KVRequest(remote: remote, path: path, field: field, version: version, refresh: refresh ? true : nil)))
        guard let secret = result.item?.secret, let kv = result.kv else { throw .malformedAnswer("a required part of the answer is missing") }
        return RemoteSecret(value: secret, version: kv.version, created: kv.created, age: kv.age, offline: kv.offline ?? false)
    }

    /// Sets `field` of a remote secret, keeping its other fields; `conflict` when the secret
    /// changed since this machine last saw it, unless `force`. The version written.
    @discardableResult
    public func writeRemote(remote: String, path: String, field: String, value: SecretBytes, force: Bool = false) throws(VaultClientError) -> Int {
        guard let kv = try perform(.kvPut(KVWrite(remote: remote, path: path, field: field, secret: value, force: force ? true : nil))).kv else {
            throw .malformedAnswer("a required part of the answer is missing")
        }
        return kv.version
    }

    /// Makes `fields` all of the fields of a remote secret (as `bao kv put`), in one version, with
    /// the same check-and-set as `writeRemote(remote:path:field:value:force:)`.
    @discardableResult
    public func writeRemote(remote: String, path: String, fields: [String: String], force: Bool = false) throws(VaultClientError) -> Int {
        var object: [UInt8] = []
        defer { object.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var data = try encoder.encode(fields)
            defer { data.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
            object = Array(data)
        } catch {
            throw VaultClientError(code: .internal, message: "the fields could not be encoded as JSON")
        }
        let secret = object.withUnsafeBytes { SecretBytes(copying: $0) }
        guard let kv = try perform(.kvPut(KVWrite(remote: remote, path: path, field: nil, secret: secret, force: force ? true : nil))).kv else {
            throw .malformedAnswer("a required part of the answer is missing")
        }
        return kv.version
    }

    /// Soft-deletes the latest version.
    public func deleteRemote(remote: String, path: String) throws(VaultClientError) {
        _ = try perform(.kvDelete(KVRequest(remote: remote, path: path)))
    }

    public func remoteHistory(remote: String, path: String) throws(VaultClientError) -> [RemoteSecretVersion] {
        (try perform(.kvHistory(KVRequest(remote: remote, path: path))).versions ?? []).map {
            RemoteSecretVersion(version: $0.version, created: $0.created, deleted: $0.deleted, destroyed: $0.destroyed ?? false, current: $0.current ?? false)
        }
    }

    /// The names under a folder of a remote (empty path: its root); folders end in `/`.
    public func listRemote(remote: String, path: String) throws(VaultClientError) -> [String] {
        try perform(.kvList(KVRequest(remote: remote, path: path))).keys ?? []
    }

    private func oneRemote(_ result: ResultBody) throws(VaultClientError) -> RemoteInfo {
        guard let body = result.remotes?.first else { throw .malformedAnswer("a required part of the answer is missing") }
        return RemoteInfo(wire: body)
    }
}

extension RemoteInfo: Encodable {
    init(wire body: RemoteBody) {
        self.init(name: body.name, url: body.url, mount: body.mount, prefix: body.prefix, maxAge: body.maxAge, auth: body.auth,
                  reachable: body.reachable, problem: body.problem, loggedIn: body.loggedIn, tokenTTL: body.tokenTTL,
                  lastContact: body.lastContact, lastRefresh: body.lastRefresh, cached: body.cached, stale: body.stale, oldest: body.oldest)
    }

    var wire: RemoteBody {
        var body = RemoteBody(name: name, url: url, mount: mount, prefix: prefix, maxAge: maxAge, auth: auth, loggedIn: loggedIn, cached: cached, stale: stale)
        body.reachable = reachable
        body.problem = problem
        body.tokenTTL = tokenTTL
        body.lastContact = lastContact
        body.lastRefresh = lastRefresh
        body.oldest = oldest
        return body
    }

    public func encode(to encoder: Encoder) throws { try wire.encode(to: encoder) }
}
