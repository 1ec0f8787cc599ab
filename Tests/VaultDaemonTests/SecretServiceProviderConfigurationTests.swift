import Testing
import VaultCore
import VaultDaemon
import VaultTestSupport
import VaultSystem

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

    /// The D-Bus activation file runs `vaultd --secret-service-provider on`: with `backend auto`
    /// it must not ask the bus for a Secret Service (the bus would hold the question until the
    /// activation of vaultd itself is over). The bus here is a socket nobody answers on.
    @Test func providerModeOnPicksTheFileStoreWithoutAskingTheBus() throws {
        let directory = TemporaryDirectory()
        let bus = directory.file("silent-bus")
        let listener = try UnixSocket.stream()
        defer { listener.close() }
        try UnixSocket.bind(listener, path: bus)
        try UnixSocket.listen(listener, backlog: 4)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(bus)", "XDG_DATA_HOME": directory.path]
        let on = try #require(try parse(["--secret-service-provider", "on"], environment))
        let selection = StoreCatalog(configuration: on).select()
        #expect(selection.store.kind == .file)
        #expect(selection.reason.contains("to be the Secret Service"), "\(selection.reason)")
    }
}
