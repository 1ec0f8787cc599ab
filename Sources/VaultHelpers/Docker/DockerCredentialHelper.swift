#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore
import VaultSystem

/// docker-credential-vault: the Docker credential helper protocol (docker-credential-helpers)
/// over vault: `store`, `get`, `erase`, `list`, `version`, with the reference helpers' errors
/// (printed on stdout, exit 1). One credential per server URL, in the item
/// `docker:SERVER_URL` / USERNAME (`DockerCredentials.service`); it never prompts. With the
/// Secret Service it keeps each credential as docker-credential-secretservice's item instead
/// (`DockerCredentials.secretServiceAttributes`), so either helper sees what the other stored or
/// erased; vault's own items (other stores, or written before) are still read and erased. With
/// `VAULT_DOCKER_REMOTE=REMOTE/FOLDER` credentials are kept in a team's engine instead
/// (`DockerRemoteCredentials`).
public struct DockerCredentialHelper {
    static let name = "docker-credential-vault"
    static let notFound = "credentials not found in native keychain"
    /// The most a request may be: a server URL, a username and a secret of vault's size limits.
    static let maxInputBytes = 128 * 1024

    let items: CredentialItems
    let remote: DockerRemoteCredentials?

    package init(environment: [String: String] = ProcessEnvironment.current) throws(HelperFailure) {
        let vault = VaultConnection(environment: environment)
        items = CredentialItems(vault: vault)
        remote = try RemoteFolder(setting: environment["VAULT_DOCKER_REMOTE"], from: "VAULT_DOCKER_REMOTE").map {
            DockerRemoteCredentials(credentials: RemoteCredentials(vault: vault, folder: $0))
        }
    }

    public static func main(arguments: [String]) -> Never {
        signal(SIGPIPE, SIG_IGN)
        guard arguments.count == 1 else {
            HelperOutput.write("Usage: \(name) <store|get|erase|list|version>\n", to: 1)
            exit(1)
        }
        do throws(HelperFailure) {
            try DockerCredentialHelper().run(arguments[0])
            exit(0)
        } catch {
            HelperOutput.write(error.message + "\n", to: 1)
            exit(error.status)
        }
    }

    func run(_ action: String) throws(HelperFailure) {
        switch action {
        case "store": try store(DockerCredentials(parsing: HelperInput.read(limit: Self.maxInputBytes)))
        case "get": try get(serverURL: readServerURL())
        case "erase": try erase(serverURL: readServerURL())
        case "list": try list()
        case "version": HelperOutput.write("\(Self.name) (vault) \(VaultVersion.string)\n", to: 1)
        default: throw HelperFailure("Unknown credential action `\(action)`")
        }
    }

    /// `get` and `erase` read the server URL as plain text (`DockerCredentials.serverURL(from:)`).
    private func readServerURL() throws(HelperFailure) -> String {
        try DockerCredentials.serverURL(from: HelperInput.read(limit: Self.maxInputBytes))
    }

    // MARK: Actions

    func store(_ credentials: DockerCredentials) throws(HelperFailure) {
        guard let serverURL = credentials.serverURL, !serverURL.isEmpty else { throw HelperFailure("no credentials server URL") }
        guard let username = credentials.username, !username.isEmpty else { throw HelperFailure("no credentials username") }
        let service = try DockerCredentials.service(serverURL: serverURL)
        do {
            try ItemKey.validate(username, field: "the username")
        } catch {
            throw HelperFailure("vault cannot keep this credential: \(error)")
        }
        if let remote { return try remote.store(serverURL: serverURL, username: username, secret: credentials.secret ?? "") }
        let secret = SecretBytes(utf8: credentials.secret ?? "")
        try HelperFailure.vault { () throws(VaultClientError) in
            // Written first, then the server's other credentials removed: a failure loses nothing.
            // With the Secret Service the one credential is docker-credential-secretservice's item,
            // so an erase by either helper is seen by both; vault's own items are for other stores.
            let shared = try items.writeForeign(
                .docker, attributes: DockerCredentials.secretServiceAttributes(serverURL: serverURL, username: username), label: serverURL, secret: secret)
            if shared {
                for other in try items.foreignItems(.docker, matching: DockerCredentials.secretServiceQuery(serverURL: serverURL))
                where other.attributes["username"] != username {
                    try items.deleteForeign(.docker, matching: other.exactly(in: .docker))
                }
            } else {
                if try items.secret(service: service, account: username) != secret {
                    try items.write(service: service, account: username, secret: secret, label: "Docker: \(serverURL)")
                }
                // docker-credential-secretservice's item kept in vault's own store (vaultd serving the
                // Secret Service), which `get` would read first: replaced by vault's own.
                try items.deleteForeign(.docker, matching: DockerCredentials.secretServiceQuery(serverURL: serverURL))
            }
            for other in try items.accounts(service: service) where shared || other != username {
                try items.delete(service: service, account: other)
            }
        }
    }

    /// Answers from one request (`resolve_credential`): docker-credential-secretservice's item
    /// (with the Secret Service), else vault's own.
    func get(serverURL: String) throws(HelperFailure) {
        let found: (username: String, secret: SecretBytes)?
        if let remote {
            found = try remote.get(serverURL: serverURL)
        } else {
            let lookup = try DockerCredentials.lookup(serverURL: serverURL)
            found = DockerAnswer.found(try HelperFailure.vault { () throws(VaultClientError) in try items.resolve(lookup) })
        }
        guard let (username, secret) = found else { throw HelperFailure(Self.notFound) }
        var answer = DockerAnswer.credentials(serverURL: serverURL, username: username, secret: secret)
        HelperOutput.write(&answer)
    }

    func erase(serverURL: String) throws(HelperFailure) {
        if let remote {
            guard try remote.erase(serverURL: serverURL) else { throw HelperFailure(Self.notFound) }
            return
        }
        let service = try DockerCredentials.service(serverURL: serverURL)
        let erased = try HelperFailure.vault { () throws(VaultClientError) -> Bool in
            let accounts = try items.accounts(service: service)
            for account in accounts { try items.delete(service: service, account: account) }
            let foreign = try items.deleteForeign(.docker, matching: DockerCredentials.secretServiceQuery(serverURL: serverURL))
            return !accounts.isEmpty || !foreign.isEmpty
        }
        guard erased else { throw HelperFailure(Self.notFound) }
    }

    /// `{"SERVER_URL":"USERNAME",…}` of the Docker credentials only: docker-credential-secretservice's
    /// (found as its `list` finds them), then vault's own for other server URLs.
    func list() throws(HelperFailure) {
        if let remote {
            var answer = DockerAnswer.list(try remote.list())
            return HelperOutput.write(&answer)
        }
        let found = try HelperFailure.vault { () throws(VaultClientError) -> [(String, String)] in
            let foreign = try items.foreignItems(.docker, matching: ["label": DockerCredentials.secretServiceLabel]).compactMap { item in
                item.attributes["server"].map { ($0, item.attributes["username"] ?? "") }
            }
            let own = try items.items(servicePrefix: DockerCredentials.servicePrefix).map {
                (String($0.service.dropFirst(DockerCredentials.servicePrefix.count)), $0.account)
            }
            return foreign + own
        }
        var answer = DockerAnswer.list(found)
        HelperOutput.write(&answer)
    }
}
