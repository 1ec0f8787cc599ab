import VaultCore
import VaultProtocol
import VaultRemotes

/// `remote_*` and `kv_*`: remote engines and their secrets. Names and paths are checked here;
/// reads, writes and deletes of a secret go through the policy core (`ItemService`) under the
/// key `kv://REMOTE` / `PATH`, so access rules, approval and the audit log hold for them as
/// for local items.
extension RequestDispatcher {
    func remoteAdd(_ request: RemoteAddRequest) throws -> ResultBody {
        guard let method = RemoteAuth.Method(rawValue: request.auth) else {
            throw VaultError.invalidInput("--auth takes \(RemoteAuth.Method.allCases.map(\.rawValue).joined(separator: ", ")), not '\(request.auth.replacingControlCharacters())'")
        }
        let auth = RemoteAuth(method: method, roleID: request.roleID, username: request.username, role: request.role, jwtFile: request.jwtFile)
        let settings = RemoteSettings(name: request.name, url: request.url, mount: request.mount, prefix: request.prefix,
                                      caFile: request.caFile, maxAge: request.maxAge, auth: auth)
        let record = try remotes.add(settings, credential: try Self.text(request.secret))
        var result = ResultBody()
        result.remotes = [remotes.body(record)]
        return result
    }

    func remoteList() throws -> ResultBody {
        var result = ResultBody()
        result.remotes = try remotes.bodies(probe: false)
        return result
    }

    func remoteRemove(_ request: RemoteNameRequest) throws -> ResultBody {
        let name = try RemoteName(request.name)
        let count = try remotes.remove(name)
        return ResultBody(message: "removed remote '\(name)' and its \(count) cached secret\(count == 1 ? "" : "s")")
    }

    func remoteLogin(_ request: RemoteNameRequest) throws -> ResultBody {
        let record = try remotes.login(try RemoteName(request.name), credential: try Self.text(request.secret))
        var result = ResultBody()
        result.remotes = [remotes.body(record)]
        return result
    }

    func kvGet(_ request: KVRequest, _ asking: ItemRequest) throws -> ResultBody {
        let (name, path) = try Self.address(request, folder: false)
        if let version = request.version, version <= 0 { throw VaultError.invalidInput("version must be a positive number") }
        let key = ItemKey.remoteSecret(name, path)
        let reference = RemoteAgent.reference(name, path)
        let (served, value) = try items.guardedRead(key, op: .kvGet, by: asking) {
            let served = try remotes.read(name, path, version: request.version, refresh: request.refresh ?? false)
            return (served, try served.secret.value(request.field, at: reference))
        }
        var result = ResultBody()
        let fetched = Timestamp.rfc3339(seconds: remotes.clock() - served.age)
        result.item = ItemBody(service: key.service, account: key.account, label: reference, comment: "", kind: ItemKind.secret.rawValue,
                               created: served.secret.created, modified: fetched, secret: SecretBytes(utf8: value))
        result.kv = KVBody(remote: name.text, path: path.text, version: served.secret.version, created: served.secret.created,
                           age: served.age, offline: served.offline ? true : nil)
        return result
    }

    func kvPut(_ request: KVWrite, _ asking: ItemRequest) throws -> ResultBody {
        let (name, path) = try Self.address(KVRequest(remote: request.remote, path: request.path), folder: false)
        guard let value = try Self.text(request.secret) else { throw VaultError.invalidInput("kv_put needs 'secret'") }
        let written = try items.audited(.kvPut, .remoteSecret(name, path), by: asking) { _ in
            if let field = request.field {
                try remotes.write(name, path, field: field, value: value, force: request.force ?? false)
            } else {
                try remotes.write(name, path, fields: try KVFields.parse(value), force: request.force ?? false)
            }
        }
        var result = ResultBody()
        result.kv = KVBody(remote: name.text, path: path.text, version: written.version, created: written.created, age: 0)
        return result
    }

    func kvDelete(_ request: KVRequest, _ asking: ItemRequest) throws -> ResultBody {
        let (name, path) = try Self.address(request, folder: false)
        try items.audited(.kvDelete, .remoteSecret(name, path), by: asking) { _ in try remotes.delete(name, path) }
        return ResultBody(message: "deleted the latest version of \(RemoteAgent.reference(name, path)) (a soft delete: 'bao kv undelete' restores it)")
    }

    func kvHistory(_ request: KVRequest) throws -> ResultBody {
        let (name, path) = try Self.address(request, folder: false)
        let metadata = try remotes.history(name, path)
        var result = ResultBody()
        result.versions = metadata.versions.map { version in
            KVVersionBody(version: version.version, created: version.created, deleted: version.deleted.isEmpty ? nil : version.deleted,
                          destroyed: version.destroyed ? true : nil, current: version.version == metadata.currentVersion ? true : nil)
        }
        return result
    }

    func kvList(_ request: KVRequest) throws -> ResultBody {
        let (name, path) = try Self.address(request, folder: true)
        var result = ResultBody()
        result.keys = try remotes.list(name, path)
        return result
    }

    static func address(_ request: KVRequest, folder: Bool) throws -> (RemoteName, KVPath) {
        (try RemoteName(request.remote), try KVPath(request.path, folder: folder))
    }

    /// A secret field as text: tokens, passwords and KV values are UTF-8 strings.
    static func text(_ secret: SecretBytes?) throws -> String? {
        guard let secret else { return nil }
        guard let text = secret.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw VaultError.invalidInput("the secret must be UTF-8 text")
        }
        return text
    }
}
