/// One case per vaultctl command that runs: what `CommandParser` hands the executable, which
/// switches over it to call the command's handler. The raw value is the command as typed, a
/// subcommand after its group and a space ("session import").
public enum CommandName: String, CaseIterable, Sendable {
    case get, set, add, delete, list, status, lock, unlock, passwd, token
    case login, signup
    case resetPassword = "reset-password"
    case logout
    case sessionImport = "session import"
    case awsSet = "aws set"
    case awsCredentialProcess = "aws credential-process"
    case kubeconfig
    case read, run, inject
    case remoteAdd = "remote add"
    case remoteList = "remote list"
    case remoteRemove = "remote remove"
    case remoteLogin = "remote login"
    case remoteSync = "remote sync"
    case spaceCreate = "space create"
    case spaceJoin = "space join"
    case spaceAdmit = "space admit"
    case spaceAdd = "space add"
    case spaceRemove = "space remove"
    case spaceStatus = "space status"
    case spaceRemoveDevice = "space remove-device"
    case spaceSync = "space sync"
    case spaceResolve = "space resolve"
    case write, history
    case allow, disallow, rules, approve, audit
    case doctor, migrate, version
    /// Never returned in `Invocation.Action.run`: the parser answers `help` itself (`.help(text)`).
    case help

    /// The words that name it on the command line: ["session", "import"].
    public var path: [String] { rawValue.split(separator: " ").map(String.init) }
}
