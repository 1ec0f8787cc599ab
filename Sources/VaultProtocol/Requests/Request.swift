/// A request, typed: one case per operation, each with its own payload. A line is decoded by
/// reading `op` first and then only that operation's fields (`RequestLine`), as ssh-agent parses
/// each message type in its own handler.
public enum Request: Sendable {
    case status
    case get(ItemName)
    case add(ItemWrite)
    case set(ItemWrite)
    case delete(ItemName)
    case list(ListRequest)
    case lock
    case unlock(UnlockRequest)
    case changePassphrase(PassphraseChange)
    case migrate(MigrateRequest)
    case doctor
    case token(TokenRequest)
    case login(SignInRequest)
    case signup(SignInRequest)
    case resetPassword(ResetPasswordRequest)
    case logout(SessionName)
    case importSession(SessionImport)
    case deviceStart(DeviceStartRequest)
    case devicePoll(DevicePollRequest)
    case foreignList(ForeignQuery)
    case foreignGet(ForeignQuery)
    case foreignSet(ForeignWrite)
    case foreignDelete(ForeignQuery)
    case allow(AccessRuleRequest)
    case disallow(AccessRuleRequest)
    case rules(AccessRuleRequest)
    case audit(AuditRequest)
    case approveNext(ApprovalWait)
    case approveAnswer(ApprovalAnswer)
    case setApprovalSecret(ApprovalSecretChange)
    case resolveCredential(CredentialRequest)
    case remoteAdd(RemoteAddRequest)
    case remoteList
    case remoteRemove(RemoteNameRequest)
    case remoteLogin(RemoteNameRequest)
    case kvGet(KVRequest)
    case kvPut(KVWrite)
    case kvDelete(KVRequest)
    case kvHistory(KVRequest)
    case kvList(KVRequest)
    case spaceCreate(SpaceRequest)
    case spaceJoin(SpaceRequest)
    case spaceAdmit(SpaceRequest)
    case spaceAdd(SpaceRequest)
    case spaceRemove(SpaceRequest)
    case spaceStatus(SpaceRequest)
    case spaceRemoveDevice(SpaceRequest)
    case spaceSync(SpaceRequest)
    case spaceResolve(SpaceRequest)

    public var operation: Operation {
        switch self {
        case .status: .status
        case .get: .get
        case .add: .add
        case .set: .set
        case .delete: .delete
        case .list: .list
        case .lock: .lock
        case .unlock: .unlock
        case .changePassphrase: .changePassphrase
        case .migrate: .migrate
        case .doctor: .doctor
        case .token: .token
        case .login: .login
        case .signup: .signup
        case .resetPassword: .resetPassword
        case .logout: .logout
        case .importSession: .importSession
        case .deviceStart: .deviceStart
        case .devicePoll: .devicePoll
        case .foreignList: .foreignList
        case .foreignGet: .foreignGet
        case .foreignSet: .foreignSet
        case .foreignDelete: .foreignDelete
        case .allow: .allow
        case .disallow: .disallow
        case .rules: .rules
        case .audit: .audit
        case .approveNext: .approveNext
        case .approveAnswer: .approveAnswer
        case .setApprovalSecret: .setApprovalSecret
        case .resolveCredential: .resolveCredential
        case .remoteAdd: .remoteAdd
        case .remoteList: .remoteList
        case .remoteRemove: .remoteRemove
        case .remoteLogin: .remoteLogin
        case .kvGet: .kvGet
        case .kvPut: .kvPut
        case .kvDelete: .kvDelete
        case .kvHistory: .kvHistory
        case .kvList: .kvList
        case .spaceCreate: .spaceCreate
        case .spaceJoin: .spaceJoin
        case .spaceAdmit: .spaceAdmit
        case .spaceAdd: .spaceAdd
        case .spaceRemove: .spaceRemove
        case .spaceStatus: .spaceStatus
        case .spaceRemoveDevice: .spaceRemoveDevice
        case .spaceSync: .spaceSync
        case .spaceResolve: .spaceResolve
        }
    }
}
