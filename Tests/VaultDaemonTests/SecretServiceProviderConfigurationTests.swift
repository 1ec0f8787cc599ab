import Testing
import VaultCore
import VaultDaemon

/// `--secret-service-provider`, `VAULT_SECRET_SERVICE_PROVIDER` and the prompt time-out.
@Suite struct SecretServiceProviderConfigurationTests {
    let home = ["HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000"]

    func parse(_ arguments: [String], _ extra: [String: String] = [:]) throws(DaemonConfiguration.Problem) -> DaemonConfiguration? {
        guard case .run(let configuration) = try DaemonConfiguration.parse(arguments: arguments, environment: home.merging(extra) { $1 }) else { return nil }
        return configuration
    }

    @Test func theFlagOverridesTheVariableWhichOverridesAuto() throws {
        let defaults = try parse([])
        #expect(defaults?.secretServiceProvider == .auto && defaults?.secretServiceProviderOrigin == "the default")
        #expect(defaults?.secretServicePromptTimeout == 60)
        let fromEnvironment = try parse([], ["VAULT_SECRET_SERVICE_PROVIDER": "off", "VAULT_SECRET_SERVICE_PROMPT_TIMEOUT": "2m"])
        #expect(fromEnvironment?.secretServiceProvider == .off && fromEnvironment?.secretServiceProviderOrigin == "VAULT_SECRET_SERVICE_PROVIDER")
        #expect(fromEnvironment?.secretServicePromptTimeout == 120)
        let fromFlag = try parse(["--secret-service-provider", "on"], ["VAULT_SECRET_SERVICE_PROVIDER": "off"])
        #expect(fromFlag?.secretServiceProvider == .on && fromFlag?.secretServiceProviderOrigin == "--secret-service-provider")
        #expect(DaemonConfiguration.usage.contains("--secret-service-provider auto|on|off"))
    }

    @Test func badValuesAreUsageErrorsThatSayWhatIsAccepted() {
        for (arguments, environment) in [(["--secret-service-provider", "yes"], [:]), (["--secret-service-provider"], [:]),
                                         ([], ["VAULT_SECRET_SERVICE_PROVIDER": "ON\u{1b}[2J"]), ([], ["VAULT_SECRET_SERVICE_PROMPT_TIMEOUT": "soon"])] {
            #expect {
                _ = try parse(arguments, environment)
            } throws: { error in
                guard let problem = error as? DaemonConfiguration.Problem else { return false }
                return problem.exitStatus == 2 && !problem.message.contains("\u{1b}")
                    && (problem.message.contains("auto, on or off") || problem.message.contains("needs a value") || problem.message.contains("duration"))
            }
        }
    }
}
