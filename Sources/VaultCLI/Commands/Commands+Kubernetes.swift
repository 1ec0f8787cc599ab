import VaultClient
import VaultCore
import VaultSystem

/// kubeconfig: a kubeconfig user whose exec plugin is `vaultctl token ... --format exec-credential`.
extension Commands {
    func kubeconfig(_ arguments: ParsedArguments) throws {
        try arguments.expect(1...2, "SERVICE [ACCOUNT]")
        let service = arguments.positionals[0]
        let account = arguments.positionals.count > 1 ? arguments.positionals[1] : nil
        let apiVersion = arguments.options["api-version"] == "v1beta1" ? ExecCredential.v1beta1 : ExecCredential.v1
        guard let vaultctl = ProcessEnvironment.executablePath, vaultctl.hasPrefix("/") else {
            throw VaultError.internal("cannot find vaultctl's own path in /proc/self/exe")
        }
        // The session must exist, so that the stanza works once pasted.
        let sessions = try vault.list(service: service).filter { $0.kind == .session && (account == nil || $0.account == account) }
        guard !sessions.isEmpty else {
            throw VaultClientError(code: .notFound, message: "no sign-in session for service '\(service)'\(account.map { " account '\($0)'" } ?? ""): sign in first with 'vaultctl login'")
        }
        guard account != nil || sessions.count == 1 else {
            throw ParsedArguments.UsageError(message: "service '\(service)' has \(sessions.count) sessions: name the ACCOUNT")
        }
        let name = arguments.options["name"] ?? "vault-\(service)"
        let commandArguments = ["token", service] + (account.map { [$0] } ?? []) + ["--format", "exec-credential"]
        Output.line("""
            users:
            - name: \(Self.yamlQuoted(name))
              user:
                exec:
                  apiVersion: \(apiVersion)
                  command: \(Self.yamlQuoted(vaultctl))
                  args: [\(commandArguments.map(Self.yamlQuoted).joined(separator: ", "))]
                  interactiveMode: Never
                  provideClusterInfo: false
            """)
    }

    /// A YAML double-quoted scalar: JSON's string syntax, which YAML reads the same way, so no
    /// name or path can end the scalar or start YAML syntax.
    static func yamlQuoted(_ text: String) -> String {
        String(decoding: (VaultJSON.line(text) ?? Array("\"\"\n".utf8)).dropLast(), as: UTF8.self)
    }
}
