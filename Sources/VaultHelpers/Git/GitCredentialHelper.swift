#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore
import VaultSystem

/// git-credential-vault: git's credential helper protocol (git-credential(1)) over vault.
/// `get`, `store`, `erase` and `capability`; any other operation is ignored (exit 0, no output).
/// It never prompts: when it cannot answer (vault locked, a bad input) it says why on stderr and
/// exits 1, and git asks the user itself. Items: service `git:PROTOCOL://HOST[:PORT][/PATH]`,
/// account the username, secret `GitStoredCredential`; with the Secret Service, git-credential-libsecret's
/// items instead (`GitCredential+Libsecret`), read after vault's own, so both helpers share them;
/// `get` asks for either in one request. A host linked to a sign-in session (`GitSessionLink`) is
/// answered with the session's fresh access token and nothing is stored. With `--remote
/// REMOTE/FOLDER` before the operation (`credential.helper 'vault --remote team/git'`), or
/// `VAULT_GIT_REMOTE`, credentials are kept in a team's engine instead (`GitRemoteCredentials`).
public struct GitCredentialHelper {
    static let name = "git-credential-vault"

    let environment: [String: String]
    let items: CredentialItems
    let remote: GitRemoteCredentials?

    /// `remote`: the `--remote` argument, else `VAULT_GIT_REMOTE` is read.
    package init(environment: [String: String] = ProcessEnvironment.current, remote: String? = nil) throws(HelperFailure) {
        self.environment = environment
        let vault = VaultConnection(environment: environment)
        items = CredentialItems(vault: vault)
        let folder = if let remote { try RemoteFolder(setting: remote, from: "--remote") } else {
            try RemoteFolder(setting: environment["VAULT_GIT_REMOTE"], from: "VAULT_GIT_REMOTE")
        }
        self.remote = folder.map { GitRemoteCredentials(credentials: RemoteCredentials(vault: vault, folder: $0)) }
    }

    public static func main(arguments: [String]) -> Never {
        signal(SIGPIPE, SIG_IGN)
        var arguments = arguments[...]
        var remote: String?
        if arguments.first == "--remote", arguments.count > 1 {
            remote = arguments.dropFirst().first
            arguments = arguments.dropFirst(2)
        } else if let first = arguments.first, first.hasPrefix("--remote=") {
            remote = String(first.dropFirst("--remote=".count))
            arguments = arguments.dropFirst()
        }
        guard let operation = arguments.first, !operation.hasPrefix("-") else {
            HelperOutput.write("usage: \(name) [--remote REMOTE/FOLDER] <get|store|erase|capability>; git runs it for 'credential.helper vault'\n", to: 2)
            exit(2)
        }
        do throws(HelperFailure) {
            try GitCredentialHelper(remote: remote).run(operation)
            exit(0)
        } catch {
            HelperOutput.write("\(name): \(error.message)\n", to: 2)
            exit(error.status)
        }
    }

    func run(_ operation: String) throws(HelperFailure) {
        switch operation {
        case "get": try get(readCredential())
        case "store": try store(readCredential())
        case "erase": try erase(readCredential())
        case "capability":
            var answer = Array("version 0\ncapability authtype\n".utf8)
            HelperOutput.write(&answer)
        default:
            return  // operations of later git versions: ignored, as git-credential(1) asks
        }
    }

    private func readCredential() throws(HelperFailure) -> GitCredential {
        try GitCredential(parsing: HelperInput.read(limit: GitCredential.maxInputBytes))
    }

    private func sessionLink(_ url: String) throws(HelperFailure) -> GitSessionLink? {
        try GitSessionLink.lookup(url: url, environment: environment)
    }

    // MARK: Operations

    /// Answers from one request (`resolve_credential`): the linked session's token, vault's own
    /// item, or git-credential-libsecret's (`GitReply`).
    func get(_ credential: GitCredential) throws(HelperFailure) {
        guard let service = try credential.itemService(), let url = credential.url else { return }
        let link = try sessionLink(url)
        if let remote, link == nil {
            return try reply(remote.get(credential, url: url))
        }
        let lookup = try credential.lookup(service: service, linkedTo: link)
        let resolved = try HelperFailure.vault { () throws(VaultClientError) in try items.resolve(lookup) }
        try reply(GitReply.to(resolved, for: credential, url: url, session: link?.service))
    }

    private func reply(_ reply: GitReply) {
        switch reply {
        case .lines(var answer): HelperOutput.write(&answer)
        case .notice(let notice): HelperOutput.write("\(Self.name): \(notice)\n", to: 2)
        case .nothing: return
        }
    }

    func store(_ credential: GitCredential) throws(HelperFailure) {
        guard let service = try credential.itemService(), let url = credential.url,
              let account = try credential.checkedUsername(), let password = credential.password else { return }
        // A linked host's password is a session token vault gave out: never kept as a password.
        guard try sessionLink(url) == nil else { return }
        if let remote { return try remote.store(credential, url: url, username: account, password: password) }
        var incoming = GitStoredCredential(password: password, expiry: credential.passwordExpiry, refreshToken: credential.refreshToken)
        let libsecret = credential.libsecretAttributes(user: account)
        try HelperFailure.vault { () throws(VaultClientError) in
            // What `get` would have answered: vault's item, else git-credential-libsecret's.
            var kept = try items.secret(service: service, account: account)
            if kept == nil, let libsecret { kept = try items.foreignSecret(.git, matching: libsecret)?.secret }
            if let kept {
                let existing = GitStoredCredential(secret: kept)
                if existing.password == incoming.password {
                    // What `get` returned (git before 2.41 drops the expiry and refresh token): keep them.
                    incoming.expiry = incoming.expiry ?? existing.expiry
                    incoming.refreshToken = incoming.refreshToken ?? existing.refreshToken
                    if incoming == existing { return }
                }
            }
            // With the Secret Service the credential is git-credential-libsecret's item, which both
            // helpers read and erase (vault's own item, from before, goes); else vault's own item.
            if let libsecret, try items.writeForeign(.git, attributes: libsecret, label: credential.libsecretLabel, secret: incoming.secret) {
                try items.delete(service: service, account: account)
            } else {
                try items.write(service: service, account: account, secret: incoming.secret, label: "git: \(url)")
                // git-credential-libsecret's item kept in vault's own store (vaultd serving the
                // Secret Service): replaced by vault's own.
                if let libsecret { try items.deleteForeign(.git, matching: libsecret) }
            }
        }
    }

    /// Forgets the credential git rejected: only when the stored password is the one git sent
    /// (a newer one stored meanwhile by another git stays); without a password, every match.
    func erase(_ credential: GitCredential) throws(HelperFailure) {
        guard let service = try credential.itemService(), let url = credential.url else { return }
        guard try sessionLink(url) == nil else { return }
        if let remote { return try remote.erase(credential, url: url) }
        let username = try credential.checkedUsername()
        try HelperFailure.vault { () throws(VaultClientError) in
            let accounts = if let username { [username] } else { try items.accounts(service: service) }
            for account in accounts {
                guard let secret = try items.secret(service: service, account: account) else { continue }
                if let rejected = credential.password, GitStoredCredential(secret: secret).password != rejected { continue }
                try items.delete(service: service, account: account)
            }
            // git-credential-libsecret's items, by the same rule.
            guard let matching = credential.libsecretAttributes(user: username) else { return }
            for item in try items.foreignItems(.git, matching: matching) {
                let exactly = item.exactly(in: .git)
                if let rejected = credential.password {
                    guard let (_, secret) = try items.foreignSecret(.git, matching: exactly),
                          GitStoredCredential(secret: secret).password == rejected else { continue }
                }
                try items.deleteForeign(.git, matching: exactly)
            }
        }
    }
}
