import Foundation
import Testing
import VaultCore

/// kubectl's exec credential plugin protocol: `vaultctl token --format exec-credential` answers in
/// the apiVersion KUBERNETES_EXEC_INFO asks for, and `vaultctl kubeconfig` prints a user that the
/// real Python `kubernetes` client (and kubectl, when installed) runs.
@Suite struct KubernetesExecTests {
    static func kubeconfig(user stanza: String, server: String = "https://127.0.0.1:6443") -> String {
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster:
            server: \(server)
            insecure-skip-tls-verify: true
        contexts:
        - name: local
          context:
            cluster: local
            user: vault-example
        current-context: local
        \(stanza)
        """
    }

    /// The Authorization header the kubernetes client would send with the kubeconfig at argv[1]
    /// (its request code takes it from `auth_settings()`).
    static let kubernetesClient = """
        import json, sys
        from kubernetes import client, config
        configuration = client.Configuration()
        config.load_kube_config(config_file=sys.argv[1], client_configuration=configuration)
        bearer = configuration.auth_settings().get("BearerToken", {})
        print(json.dumps({"authorization": bearer.get("value") if bearer.get("in") == "header" and bearer.get("key") == "authorization" else None}))
        """

    func accessToken(_ vault: VaultHarness) throws -> String {
        let session = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "example", "alice").stdout)) as? [String: Any]
        return session?["access_token"] as? String ?? "(none)"
    }

    @Test func theKubernetesClientSendsVaultsFreshTokenWithV1AndV1beta1() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)
        for version in ["v1", "v1beta1"] {
            let printed = try vault.ctl("kubeconfig", "example", "--api-version", version)
            #expect(printed.status == 0, "\(printed.stderr)")
            let stanza = printed.text
            #expect(stanza.contains("apiVersion: client.authentication.k8s.io/\(version)\n"), "\(stanza)")
            #expect(stanza.contains("command: \"\(VaultHarness.vaultctl)\""), "\(stanza)")
            #expect(stanza.contains("interactiveMode: Never") && stanza.contains(#"args: ["token", "example", "--format", "exec-credential"]"#), "\(stanza)")
            let file = vault.root + "/kubeconfig-\(version)"
            FileManager.default.createFile(atPath: file, contents: Data(Self.kubeconfig(user: stanza).utf8))
            let result = try vault.run([PythonFixture.packageRoot + "/.venv/bin/python", "-c", Self.kubernetesClient, file])
            #expect(result.status == 0, "\(version): \(result.stderr)")
            let header = (try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: String])?["authorization"]
            #expect(header == "Bearer " + (try accessToken(vault)), "\(version): vault's current token; \(result.stderr)")
        }
        // Without a session there is nothing to print.
        let none = try vault.ctl("kubeconfig", "nothing-here")
        #expect(none.status == 3 && none.stderr.contains("vaultctl login"), "\(none.stderr)")
    }

    @Test func execCredentialAnswersTheAskedVersionAndRefusesWhatItCannot() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)
        func answer(_ execInfo: String?) throws -> VaultHarness.Result {
            try vault.ctl(["token", "example", "--format", "exec-credential"], environment: execInfo.map { ["KUBERNETES_EXEC_INFO": $0] } ?? [:])
        }
        let cases: [(String?, String)] = [
            (nil, "client.authentication.k8s.io/v1"),
            (#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}"#, "client.authentication.k8s.io/v1"),
            (#"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{"interactive":true}}"#, "client.authentication.k8s.io/v1beta1"),
        ]
        for (execInfo, expected) in cases {
            let result = try answer(execInfo)
            #expect(result.status == 0, "\(result.stderr)")
            let credential = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
            #expect(credential?["apiVersion"] as? String == expected && credential?["kind"] as? String == "ExecCredential", "\(String(describing: execInfo))")
            #expect((credential?["status"] as? [String: Any])?["token"] as? String == (try accessToken(vault)))
        }
        let bad = [
            #"{"apiVersion":"client.authentication.k8s.io/v1alpha1","kind":"ExecCredential"}"#,
            #"{"kind":"ExecCredential","spec":{}}"#,
            #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod"}"#,
            #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":"no"}}"#,
            "not json \u{1B}[2J",
            "[]",
        ]
        let requests = try server.tokenRequests()
        for execInfo in bad {
            let result = try answer(execInfo)
            #expect(result.status == 2 && result.text.isEmpty && result.stderr.contains("KUBERNETES_EXEC_INFO"), "\(execInfo): \(result.stderr)")
            #expect(!result.stderr.contains("\u{1B}"))
        }
        #expect(try server.tokenRequests() == requests, "refused before asking vaultd for a token")
    }
}

extension KubernetesExecTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/kubectl")))
    func kubectlRunsTheStanzaAgainstAnHTTPSServer() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)
        let api = try PythonFixture("kube_api_server.py", in: vault)
        let https = "https://127.0.0.1:\(api.info["port"] as? Int ?? 0)"
        for version in ["v1", "v1beta1"] {
            let stanza = try vault.ctl("kubeconfig", "example", "--api-version", version).text
            let file = vault.root + "/kubectl-\(version)"
            FileManager.default.createFile(atPath: file, contents: Data(Self.kubeconfig(user: stanza, server: https).utf8))
            let result = try vault.run(["/usr/bin/kubectl", "--kubeconfig", file, "get", "--raw", "/api"], environment: ["KUBECACHEDIR": vault.root + "/kube-cache"])
            #expect(result.status == 0 && result.text.contains("APIVersions"), "\(version): \(result.stderr)")
            let seen = (try? String(contentsOfFile: vault.root + "/kube_api_server.py/authorization", encoding: .utf8)) ?? ""
            #expect(seen.split(separator: "\n").last.map(String.init) == "Bearer " + (try accessToken(vault)), "\(version)")
        }
    }
}
