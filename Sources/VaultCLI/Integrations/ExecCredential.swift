#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// kubectl's (client-go's) exec credential: `vaultctl token --format exec-credential` answers with
/// the apiVersion that `KUBERNETES_EXEC_INFO` asks for (the kubeconfig's `exec.apiVersion`),
/// `client.authentication.k8s.io/v1` when it is absent, since kubectl and the Python `kubernetes`
/// client refuse an answer in another version.
struct ExecCredential: Encodable {
    static let v1 = "client.authentication.k8s.io/v1"
    static let v1beta1 = "client.authentication.k8s.io/v1beta1"
    static let apiVersions = [v1, v1beta1]

    struct Status: Encodable {
        var token: String
        var expirationTimestamp: String?
    }
    var apiVersion: String
    var kind = "ExecCredential"
    var status: Status

    init(apiVersion: String, token: String, expirationTimestamp: String?) {
        self.apiVersion = apiVersion
        status = Status(token: token, expirationTimestamp: expirationTimestamp)
    }

    /// What `KUBERNETES_EXEC_INFO` says. vaultctl never prompts, so `interactive` changes nothing;
    /// it is read so that a malformed value is refused rather than ignored.
    struct Request: Decodable {
        struct Spec: Decodable { var interactive: Bool? }
        var apiVersion: String?
        var kind: String?
        var spec: Spec?
    }

    /// The apiVersion to answer with. Throws `VaultError.invalidInput` (exit 2) for malformed JSON or
    /// an apiVersion vault does not speak, before anything is asked of vaultd.
    static func apiVersion(execInfo: String?) throws -> String {
        guard let execInfo, !execInfo.isEmpty else { return v1 }
        let request: Request
        do {
            request = try JSONDecoder().decode(Request.self, from: Data(execInfo.utf8))
        } catch {
            throw VaultError.invalidInput("KUBERNETES_EXEC_INFO is not an ExecCredential in JSON; it is set by kubectl, unset it when running vaultctl by hand")
        }
        if let kind = request.kind, kind != "ExecCredential" {
            throw VaultError.invalidInput("KUBERNETES_EXEC_INFO holds a '\(String(kind.prefix(60)).replacingControlCharacters())', not an ExecCredential")
        }
        guard let apiVersion = request.apiVersion, apiVersions.contains(apiVersion) else {
            let asked = request.apiVersion.map { "'\(String($0.prefix(80)).replacingControlCharacters())'" } ?? "no apiVersion"
            throw VaultError.invalidInput(
                "KUBERNETES_EXEC_INFO asks for \(asked); vaultctl answers \(v1) and \(v1beta1): set exec.apiVersion in the kubeconfig to one of them (vaultctl kubeconfig prints a stanza)")
        }
        return apiVersion
    }
}
