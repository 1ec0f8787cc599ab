import VaultCore

/// One request line: `{"id":…,"op":"…", …the operation's fields}`. Decoding reads `op`, then
/// hands the same object to that operation's payload, which reads only its own fields; unknown
/// fields are ignored.
public struct RequestLine: Codable, Sendable, SecretCarrying {
    public var id: RequestID?
    public var request: Request

    static let secretPath: [String] = []
    static let secretKeys = SecretFields.requestKeys

    enum CodingKeys: String, CodingKey { case id, op }

    public init(id: RequestID?, request: Request) {
        self.id = id
        self.request = request
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(RequestID.self, forKey: .id)
        let name = try container.decode(String.self, forKey: .op)
        guard let operation = Operation(rawValue: name) else {
            let known = Operation.allCases.map(\.rawValue).joined(separator: ", ")
            throw VaultError.invalidInput("unknown op '\(name.replacingControlCharacters())'; known ops: \(known)")
        }
        request = switch operation {
        case .status: .status
        case .get: .get(try ItemName(from: decoder))
        case .add: .add(try ItemWrite(from: decoder))
        case .set: .set(try ItemWrite(from: decoder))
        case .delete: .delete(try ItemName(from: decoder))
        case .list: .list(try ListRequest(from: decoder))
        case .lock: .lock
        case .unlock: .unlock(try UnlockRequest(from: decoder))
        case .changePassphrase: .changePassphrase(try PassphraseChange(from: decoder))
        case .migrate: .migrate(try MigrateRequest(from: decoder))
        case .doctor: .doctor
        case .token: .token(try TokenRequest(from: decoder))
        case .login: .login(try SignInRequest(from: decoder))
        case .signup: .signup(try SignInRequest(from: decoder))
        case .resetPassword: .resetPassword(try ResetPasswordRequest(from: decoder))
        case .logout: .logout(try SessionName(from: decoder))
        case .importSession: .importSession(try SessionImport(from: decoder))
        case .deviceStart: .deviceStart(try DeviceStartRequest(from: decoder))
        case .devicePoll: .devicePoll(try DevicePollRequest(from: decoder))
        case .foreignList: .foreignList(try ForeignQuery(from: decoder))
        case .foreignGet: .foreignGet(try ForeignQuery(from: decoder))
        case .foreignSet: .foreignSet(try ForeignWrite(from: decoder))
        case .foreignDelete: .foreignDelete(try ForeignQuery(from: decoder))
        case .allow: .allow(try AccessRuleRequest(from: decoder))
        case .disallow: .disallow(try AccessRuleRequest(from: decoder))
        case .rules: .rules(try AccessRuleRequest(from: decoder))
        case .audit: .audit(try AuditRequest(from: decoder))
        case .approveNext: .approveNext(try ApprovalWait(from: decoder))
        case .approveAnswer: .approveAnswer(try ApprovalAnswer(from: decoder))
        case .setApprovalSecret: .setApprovalSecret(try ApprovalSecretChange(from: decoder))
        case .resolveCredential: .resolveCredential(try CredentialRequest(from: decoder))
        case .remoteAdd: .remoteAdd(try RemoteAddRequest(from: decoder))
        case .remoteList: .remoteList
        case .remoteRemove: .remoteRemove(try RemoteNameRequest(from: decoder))
        case .remoteLogin: .remoteLogin(try RemoteNameRequest(from: decoder))
        case .kvGet: .kvGet(try KVRequest(from: decoder))
        case .kvPut: .kvPut(try KVWrite(from: decoder))
        case .kvDelete: .kvDelete(try KVRequest(from: decoder))
        case .kvHistory: .kvHistory(try KVRequest(from: decoder))
        case .kvList: .kvList(try KVRequest(from: decoder))
        case .spaceCreate: .spaceCreate(try SpaceRequest(from: decoder))
        case .spaceJoin: .spaceJoin(try SpaceRequest(from: decoder))
        case .spaceAdmit: .spaceAdmit(try SpaceRequest(from: decoder))
        case .spaceAdd: .spaceAdd(try SpaceRequest(from: decoder))
        case .spaceRemove: .spaceRemove(try SpaceRequest(from: decoder))
        case .spaceStatus: .spaceStatus(try SpaceRequest(from: decoder))
        case .spaceRemoveDevice: .spaceRemoveDevice(try SpaceRequest(from: decoder))
        case .spaceSync: .spaceSync(try SpaceRequest(from: decoder))
        case .spaceResolve: .spaceResolve(try SpaceRequest(from: decoder))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(request.operation.rawValue, forKey: .op)
        switch request {
        case .status, .lock, .doctor, .remoteList: break
        case .get(let payload), .delete(let payload): try payload.encode(to: encoder)
        case .add(let payload), .set(let payload): try payload.encode(to: encoder)
        case .list(let payload): try payload.encode(to: encoder)
        case .unlock(let payload): try payload.encode(to: encoder)
        case .changePassphrase(let payload): try payload.encode(to: encoder)
        case .migrate(let payload): try payload.encode(to: encoder)
        case .token(let payload): try payload.encode(to: encoder)
        case .login(let payload), .signup(let payload): try payload.encode(to: encoder)
        case .resetPassword(let payload): try payload.encode(to: encoder)
        case .logout(let payload): try payload.encode(to: encoder)
        case .importSession(let payload): try payload.encode(to: encoder)
        case .deviceStart(let payload): try payload.encode(to: encoder)
        case .devicePoll(let payload): try payload.encode(to: encoder)
        case .foreignList(let payload), .foreignGet(let payload), .foreignDelete(let payload): try payload.encode(to: encoder)
        case .foreignSet(let payload): try payload.encode(to: encoder)
        case .allow(let payload), .disallow(let payload), .rules(let payload): try payload.encode(to: encoder)
        case .audit(let payload): try payload.encode(to: encoder)
        case .approveNext(let payload): try payload.encode(to: encoder)
        case .setApprovalSecret(let payload): try payload.encode(to: encoder)
        case .approveAnswer(let payload): try payload.encode(to: encoder)
        case .resolveCredential(let payload): try payload.encode(to: encoder)
        case .remoteAdd(let payload): try payload.encode(to: encoder)
        case .remoteRemove(let payload), .remoteLogin(let payload): try payload.encode(to: encoder)
        case .kvGet(let payload), .kvDelete(let payload), .kvHistory(let payload), .kvList(let payload): try payload.encode(to: encoder)
        case .kvPut(let payload): try payload.encode(to: encoder)
        case .spaceCreate(let payload), .spaceJoin(let payload), .spaceAdmit(let payload), .spaceAdd(let payload), .spaceRemove(let payload), .spaceStatus(let payload), .spaceRemoveDevice(let payload), .spaceSync(let payload), .spaceResolve(let payload):
            try payload.encode(to: encoder)
        }
    }
}
