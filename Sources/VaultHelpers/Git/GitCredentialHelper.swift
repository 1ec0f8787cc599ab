#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore

/// git-credential-vault: git's credential helper protocol (git-credential(1)) over vault.
/// `get`, `store`, `erase` and `capability`; any other operation is ignored (exit 0, no output).
/// It never prompts: when it cannot answer (vault locked, a bad input) it says why on stderr and
/// exits 1, and git asks the user itself. Items: service `git:PROTOCOL://HOST[:PORT][/PATH]`,
/// account the username, secret `GitStoredCredential`. A host linked to a sign-in session
/// (`GitSessionLink`) is answered with the session's fresh access token and nothing is stored.
public struct GitCredentialHelper {
    static let name = "git-credential-vault"

    let environment: [String: String]
    let items: CredentialItems

    public init(environment: [String: String] = ProcessEnvironment.current) {
        self.environment = environment
        items = CredentialItems(vault: VaultConnection(environment: environment))
    }

    public static func main(arguments: [String]) -> Never {
        signal(SIGPIPE, SIG_IGN)
        guard let operation = arguments.first else {
            HelperOutput.write("usage: \(name) <get|store|erase|capability>; git runs it for 'credential.helper vault'\n", to: 2)
            exit(2)
        }
        do throws(HelperFailure) {
            try GitCredentialHelper().run(operation)
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

    func get(_ credential: GitCredential) throws(HelperFailure) {
        guard let service = try credential.itemService(), let url = credential.url else { return }
        if let link = try sessionLink(url) {
            let token = try HelperFailure.vault { () throws(VaultClientError) in
                try items.vault.token(service: link.service, account: link.account)
            }
            guard var answer = GitAnswer.token(token, for: credential) else {
                throw HelperFailure("the access token of vault session '\(link.service)' holds a line break or NUL, so it cannot be given to git")
            }
            HelperOutput.write(&answer)
            return
        }
        let account: String
        if let username = try credential.checkedUsername() {
            account = username
        } else {
            let accounts = try HelperFailure.vault { () throws(VaultClientError) in try items.accounts(service: service) }
            guard accounts.count == 1 else {
                if accounts.count > 1 {
                    HelperOutput.write("\(Self.name): \(accounts.count) credentials are kept for \(url); set credential.username to choose one\n", to: 2)
                }
                return
            }
            account = accounts[0]
        }
        guard let secret = try HelperFailure.vault({ () throws(VaultClientError) in try items.secret(service: service, account: account) }) else { return }
        let stored = GitStoredCredential(secret: secret)
        guard !stored.isExpired() else { return }
        var answer = GitAnswer.password(stored, username: account)
        HelperOutput.write(&answer)
    }

    func store(_ credential: GitCredential) throws(HelperFailure) {
        guard let service = try credential.itemService(), let url = credential.url,
              let account = try credential.checkedUsername(), let password = credential.password else { return }
        // A linked host's password is a session token vault gave out: never kept as a password.
        guard try sessionLink(url) == nil else { return }
        var incoming = GitStoredCredential(password: password, expiry: credential.passwordExpiry, refreshToken: credential.refreshToken)
        if let secret = try HelperFailure.vault({ () throws(VaultClientError) in try items.secret(service: service, account: account) }) {
            let existing = GitStoredCredential(secret: secret)
            if existing.password == incoming.password {
                // What `get` returned (git before 2.41 drops the expiry and refresh token): keep them.
                incoming.expiry = incoming.expiry ?? existing.expiry
                incoming.refreshToken = incoming.refreshToken ?? existing.refreshToken
                if incoming == existing { return }
            }
        }
        try HelperFailure.vault { () throws(VaultClientError) in
            try items.write(service: service, account: account, secret: incoming.secret, label: "git: \(url)")
        }
    }

    /// Forgets the credential git rejected: only when the stored password is the one git sent
    /// (a newer one stored meanwhile by another git stays); without a password, every match.
    func erase(_ credential: GitCredential) throws(HelperFailure) {
        guard let service = try credential.itemService(), let url = credential.url else { return }
        guard try sessionLink(url) == nil else { return }
        let username = try credential.checkedUsername()
        try HelperFailure.vault { () throws(VaultClientError) in
            let accounts = if let username { [username] } else { try items.accounts(service: service) }
            for account in accounts {
                guard let secret = try items.secret(service: service, account: account) else { continue }
                if let rejected = credential.password, GitStoredCredential(secret: secret).password != rejected { continue }
                try items.delete(service: service, account: account)
            }
        }
    }
}
