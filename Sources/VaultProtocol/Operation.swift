/// The operations vaultd answers (docs/protocol.md).
public enum Operation: String, Sendable, CaseIterable, Codable {
    case status, get, add, set, delete, list, lock, unlock
    case changePassphrase = "change_passphrase"
    case migrate, doctor
    case token, login, signup, logout
    case importSession = "import_session"
    case resetPassword = "reset_password"
    case deviceStart = "device_start"
    case devicePoll = "device_poll"
    case foreignList = "foreign_list"
    case foreignGet = "foreign_get"
    case foreignSet = "foreign_set"
    case foreignDelete = "foreign_delete"
    case allow, disallow, rules, audit
    case approveNext = "approve_next"
    case approveAnswer = "approve_answer"
    case setApprovalSecret = "set_approval_secret"
    case resolveCredential = "resolve_credential"
    case remoteAdd = "remote_add"
    case remoteList = "remote_list"
    case remoteRemove = "remote_remove"
    case remoteLogin = "remote_login"
    case kvGet = "kv_get"
    case kvPut = "kv_put"
    case kvDelete = "kv_delete"
    case kvHistory = "kv_history"
    case kvList = "kv_list"
    case spaceCreate = "space_create"
    case spaceJoin = "space_join"
    case spaceAdmit = "space_admit"
    case spaceAdd = "space_add"
    case spaceRemove = "space_remove"
    case spaceStatus = "space_status"
    case spaceRemoveDevice = "space_remove_device"
    case spaceSync = "space_sync"
    case spaceResolve = "space_resolve"
}
