import Testing
import VaultCore
import VaultDaemon

/// vaultd's flags and environment: defaults, every flag, and each way to get them wrong.
@Suite struct ConfigurationTests {
    let home = ["HOME": "/home/alice", "XDG_RUNTIME_DIR": "/run/user/1000"]

    func configuration(_ arguments: [String], _ environment: [String: String]? = nil) throws -> DaemonConfiguration {
        guard case .run(let configuration) = try DaemonConfiguration.parse(arguments: arguments, environment: environment ?? home) else {
            throw VaultError.internal("not a run")
        }
        return configuration
    }

    func problem(_ arguments: [String], _ environment: [String: String]? = nil) -> DaemonConfiguration.Problem? {
        do {
            _ = try DaemonConfiguration.parse(arguments: arguments, environment: environment ?? home)
            return nil
        } catch {
            return error
        }
    }

    @Test func defaultsComeFromTheEnvironment() throws {
        let defaults = try configuration([])
        #expect(defaults.socketPath == "/run/user/1000/vault/vault.sock")
        #expect(defaults.vaultFilePath == "/home/alice/.local/share/vault/vault.db")
        #expect(defaults.backend == .auto && defaults.lockAfter == nil && defaults.refreshAhead == nil)
        #expect(defaults.idleTimeout == 300 && defaults.maxConnections == 128 && defaults.secretServiceTimeout == 5 && defaults.httpTimeout == 10)
        #expect(defaults.requestTimeout == 10 && defaults.maxConnectionsPerProcess == nil && defaults.connectionsPerProcessLimit == 32)
        #expect(defaults.kdfParameters == .default && defaults.passphraseSource == nil && !defaults.verbose && defaults.logFile == nil)
        #expect(defaults.approvalTimeout == 20 && !defaults.confirmAll)
    }

    @Test func everyFlagAndVariableIsRead() throws {
        let environment = home.merging([
            "VAULT_BACKEND": "secret-service", "VAULT_FILE": "/srv/v.db", "VAULT_KDF_LOG2N": "15", "VAULT_SECRET_SERVICE_TIMEOUT": "2",
            "VAULT_HTTP_TIMEOUT": "30s", "VAULT_PASSPHRASE": "x",
        ]) { $1 }
        let parsed = try configuration(
            ["--socket", "/tmp/s.sock", "--backend=file", "--lock-after", "15m", "--refresh-ahead", "5m", "--idle-timeout", "30s",
             "--max-connections", "4", "--max-connections-per-process", "2", "--request-timeout", "3s", "--log-file", "/tmp/v.log", "--verbose",
             "--approval-timeout", "5s", "--confirm-all", "--trust-bus-pids"].flatMap { $0 == "--backend=file" ? ["--backend", "file"] : [$0] },
            environment)
        #expect(parsed.socketPath == "/tmp/s.sock" && parsed.vaultFilePath == "/srv/v.db")
        #expect(parsed.backend == .file, "the flag wins over VAULT_BACKEND")
        #expect(parsed.lockAfter == 900 && parsed.refreshAhead == 300 && parsed.idleTimeout == 30 && parsed.maxConnections == 4)
        #expect(parsed.connectionsPerProcessLimit == 2 && parsed.requestTimeout == 3)
        #expect(parsed.logFile == "/tmp/v.log" && parsed.verbose && parsed.kdfParameters.log2N == 15)
        #expect(parsed.secretServiceTimeout == 2 && parsed.httpTimeout == 30 && parsed.passphraseSource == .environment)
        #expect(parsed.approvalTimeout == 5 && parsed.confirmAll && parsed.trustBusPIDs)
        #expect(try !configuration([], home).trustBusPIDs, "D-Bus callers are bound by ProcessFD only, unless asked")
        #expect(try configuration([], home.merging(["VAULT_TRUST_BUS_PIDS": "1"]) { $1 }).trustBusPIDs)
        #expect(try !configuration([], home.merging(["VAULT_TRUST_BUS_PIDS": "0"]) { $1 }).trustBusPIDs)
    }

    @Test func helpAndVersion() throws {
        guard case .help = try DaemonConfiguration.parse(arguments: ["--help"], environment: home),
              case .version = try DaemonConfiguration.parse(arguments: ["--version"], environment: home)
        else { Issue.record("help or version not recognised"); return }
        #expect(DaemonConfiguration.usage.contains("--refresh-ahead") && DaemonConfiguration.usage.contains("VAULT_HTTP_TIMEOUT"))
    }

    @Test func mistakesAreUsageErrorsThatSayWhatIsWrong() {
        let cases: [([String], [String: String]?, String)] = [
            (["--frobnicate"], nil, "unknown option '--frobnicate'"),
            (["--socket"], nil, "--socket needs a value"),
            (["--lock-after", "soon"], nil, "--lock-after takes a duration"),
            (["--idle-timeout", "-5s"], nil, "--idle-timeout takes a duration"),
            (["--max-connections", "0"], nil, "--max-connections takes a positive number"),
            (["--max-connections", "99999999999999999999"], nil, "--max-connections takes a positive number"),
            (["--max-connections-per-process", "-1"], nil, "--max-connections-per-process takes a positive number"),
            (["--max-connections-per-process"], nil, "--max-connections-per-process needs a value"),
            (["--request-timeout", "0s"], nil, "--request-timeout takes a duration"),
            (["--request-timeout", "inf"], nil, "--request-timeout takes a duration"),
            (["--approval-timeout", "1m"], nil, "--approval-timeout is at most 25s"),
            (["--approval-timeout", "later"], nil, "--approval-timeout takes a duration"),
            ([], home.merging(["VAULT_TRUST_BUS_PIDS": "yes"]) { $1 }, "VAULT_TRUST_BUS_PIDS takes 1 or 0, got 'yes'"),
            (["--backend", "floppy"], nil, "unknown backend 'floppy'"),
            ([], home.merging(["VAULT_BACKEND": "bogus"]) { $1 }, "unknown backend 'bogus'"),
            ([], home.merging(["VAULT_KDF_LOG2N": "30"]) { $1 }, "VAULT_KDF_LOG2N must be a number from 14 to 22"),
            ([], home.merging(["VAULT_HTTP_TIMEOUT": "never"]) { $1 }, "VAULT_HTTP_TIMEOUT takes a duration"),
            ([], home.merging(["VAULT_SECRET_SERVICE_TIMEOUT": "0"]) { $1 }, "VAULT_SECRET_SERVICE_TIMEOUT takes a duration"),
        ]
        for (arguments, environment, message) in cases {
            let found = problem(arguments, environment)
            #expect(found?.exitStatus == 2, "\(arguments) \(String(describing: environment))")
            #expect(found?.message.contains(message) == true, "\(String(describing: found))")
        }
        // Control characters from outside never reach the terminal as such.
        #expect(problem(["--lock-after", "1\u{1B}[2J"])?.message.contains("\u{1B}") == false)
        // Nowhere to put the vault is not a usage error.
        let nowhere = problem([], ["VAULT_FILE": "relative/vault.db"])
        #expect(nowhere?.exitStatus == 1 && nowhere?.message.contains("absolute") == true)
    }

    @Test func theConnectionCapFitsTheOpenFileLimit() throws {
        var parsed = try configuration(["--max-connections", "500"])
        let lowered = parsed.fitConnections(toOpenFileLimit: 64)
        #expect(parsed.maxConnections == (64 - DaemonConfiguration.descriptorsReserved) / DaemonConfiguration.descriptorsPerConnection)
        #expect(parsed.connectionsPerProcessLimit == 2, "a quarter of the lowered cap")
        #expect(lowered?.contains("lowered from 500 to 8: the open-file limit is 64") == true, "\(String(describing: lowered))")
        // A limit that leaves nothing still admits one connection; a roomy one changes nothing.
        #expect(parsed.fitConnections(toOpenFileLimit: 3) != nil && parsed.maxConnections == 1)
        var roomy = try configuration([])
        #expect(roomy.fitConnections(toOpenFileLimit: 1_048_576) == nil && roomy.maxConnections == 128)
        #expect(roomy.fitConnections(toOpenFileLimit: Int.max) == nil)
    }
}
