#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultClient
import VaultCore

/// What `docker-credential-vault store` reads: `{"ServerURL":…,"Username":…,"Secret":…}`. Any
/// other member is ignored (as the reference helpers' Go decoder does); a member of the wrong
/// type, or anything but one JSON object, is refused.
package struct DockerCredentials: Decodable {
    package var serverURL: String?
    package var username: String?
    package var secret: String?

    enum CodingKeys: String, CodingKey {
        case serverURL = "ServerURL"
        case username = "Username"
        case secret = "Secret"
    }

    /// Items of Docker credentials are named `docker:SERVER_URL` (account: the username, or
    /// `<token>` for an identity token), so `list` can tell them from every other item.
    static let servicePrefix = "docker:"

    package static func service(serverURL: String) throws(HelperFailure) -> String {
        let service = servicePrefix + serverURL
        do {
            try ItemKey.validate(service, field: "the server URL")
        } catch {
            throw HelperFailure("vault cannot keep this credential: \(error)")
        }
        return service
    }

    /// The server URL `get` and `erase` read: the input as UTF-8 text, surrounding white space
    /// trimmed; refused when it is not text or nothing is left.
    package static func serverURL(from input: SecretBytes) throws(HelperFailure) -> String {
        guard let text = input.utf8String else { throw HelperFailure("the server URL is not UTF-8 text") }
        let serverURL = text.trimming(String.asciiWhitespace)
        guard !serverURL.isEmpty else { throw HelperFailure("no credentials server URL") }
        return serverURL
    }

    /// What `get` asks vault for (`resolve_credential`): docker-credential-secretservice's items
    /// for the server URL (`secretServiceQuery`), else vault's own item (`service`).
    static func lookup(serverURL: String) throws(HelperFailure) -> CredentialLookup {
        CredentialLookup(helper: .docker, service: try service(serverURL: serverURL), foreignAttributes: secretServiceQuery(serverURL: serverURL))
    }

    /// docker-credential-secretservice's items: the `label` attribute it lists by, and the
    /// attributes of the one item per server URL and username it writes (`io.docker.Credentials`).
    static let secretServiceLabel = "Docker Credentials"

    static func secretServiceAttributes(serverURL: String, username: String) -> [String: String?] {
        ["label": secretServiceLabel, "server": serverURL, "username": username, "docker_cli": "1"]
    }

    /// Its items for `serverURL`, whatever the username, as its `get` and `erase` find them.
    static func secretServiceQuery(serverURL: String) -> [String: String?] {
        ["server": serverURL, "docker_cli": "1"]
    }

    package init(parsing input: SecretBytes) throws(HelperFailure) {
        do {
            self = try input.withUnsafeBytes { try JSONDecoder().decode(DockerCredentials.self, from: Data($0)) }
        } catch {
            throw HelperFailure(#"the input is not one JSON object of strings like {"ServerURL":"…","Username":"…","Secret":"…"}; nothing was stored"#)
        }
    }
}
