#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto
import VaultProtocol
import VaultStores

/// vaultd's command line and environment, parsed and validated in one place (flags, environment
/// variables and defaults), so `vaultd/main.swift` only acts on the result.
extension DaemonConfiguration {
    /// What vaultd was asked to do.
    public enum Invocation: Sendable {
        case run(DaemonConfiguration)
        case help
        case version
    }

    /// A command line or environment vaultd cannot start with: what is wrong, and the exit status
    /// (2 for usage, 1 otherwise).
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let message: String
        public let exitStatus: Int32

        static func usage(_ message: String) -> Problem { Problem(message: message, exitStatus: 2) }
        public var description: String { message }
    }

    public static let usage = """
        usage: vaultd [options]

        The per-user vault daemon. Clients (vaultctl, VaultClient) talk to it over a Unix socket.

        options:
          --socket PATH          listen here (default: $VAULT_SOCKET, $XDG_RUNTIME_DIR/vault/vault.sock,
                                 or ~/.local/state/vault/vault.sock)
          --backend NAME         auto (default), secret-service or file; or VAULT_BACKEND
          --secret-service-provider auto|on|off  serve the Secret Service D-Bus API as
                                 org.freedesktop.secrets (default auto: when there is a session
                                 bus, nobody else owns the name and the file store is in use; on:
                                 refuse to start otherwise); or VAULT_SECRET_SERVICE_PROVIDER
          --lock-after DURATION  drop keys after this long without a client request that touches
                                 items (e.g. 15m, 2h); status and background refresh do not count
          --refresh-ahead DURATION  refresh sign-in sessions in the background once they expire
                                 within DURATION (e.g. 5m), so 'vaultctl token' never waits
          --remote-refresh DURATION  ask remote engines whether cached secrets changed this often
                                 (default: 30s); or VAULT_REMOTE_REFRESH
          --space-interval DURATION  run a sync round of each space this often (default: 20s);
                                 or VAULT_SPACE_INTERVAL
          --idle-timeout DURATION  close client connections idle this long (default: 5m)
          --request-timeout DURATION  a request line must arrive whole this soon after its first
                                 byte, or the connection is closed (default: 10s)
          --approval-timeout DURATION  deny a request that needs approval ('vaultctl approve')
                                 when no answer comes this soon (default: 20s, at most 25s)
          --confirm-all          every read of every item needs an answer from 'vaultctl approve'
                                 unless an access rule allows the program ('vaultctl allow')
          --trust-bus-pids       on a bus that gives no ProcessFD (dbus-daemon before 1.15.7),
                                 let rules match D-Bus callers by the pid the bus reports; a
                                 program of yours can then pass for an allowed one
                                 (docs/threat-model.md); or VAULT_TRUST_BUS_PIDS=1
          --max-connections N    connections open at once (default: 128, lowered to fit the
                                 open-file limit); beyond N the longest-idle one is closed to
                                 admit a new one, or the new one is refused if none is idle
          --max-connections-per-process N  connections one process may hold (default: a
                                 quarter of --max-connections)
          --log-file PATH        append logs here instead of stderr: a regular file of yours, mode 0600
                                 (created so); a link or a FIFO is refused
          --verbose              log every request (names only, never secrets)
          --version, --help

        environment: VAULT_BACKEND, VAULT_SECRET_SERVICE_PROVIDER, VAULT_TRUST_BUS_PIDS, VAULT_FILE, VAULT_PASSPHRASE_FILE, CREDENTIALS_DIRECTORY,
        VAULT_PASSPHRASE, VAULT_KDF_LOG2N (scrypt cost of new vaults, 14-22, default 17),
        VAULT_SECRET_SERVICE_TIMEOUT (seconds, default 5),
        VAULT_SECRET_SERVICE_PROMPT_TIMEOUT (an unlock prompt's wait, default 60s), VAULT_HTTP_TIMEOUT (sign-in providers,
        seconds, default 10). See docs/configuration.md.

        configuration file: $XDG_CONFIG_HOME/vault/config (default ~/.config/vault/config), lines
        'backend = auto|file|secret-service', 'passphrase-file = PATH', 'file = PATH'; the
        environment and the options above override it.

        """

    /// Parses vaultd's arguments (without the program name) and environment.
    public static func parse(arguments: [String], environment: [String: String]) throws(Problem) -> Invocation {
        var remaining = arguments[...]
        func value(for flag: String) throws(Problem) -> String {
            guard let value = remaining.popFirst() else { throw .usage("\(flag) needs a value\n\n\(usage)") }
            return value
        }
        func duration(for flag: String, example: String) throws(Problem) -> Double {
            let text = try value(for: flag)
            guard let seconds = DurationText.seconds(text) else {
                throw .usage("\(flag) takes a duration such as \(example), got '\(text.replacingControlCharacters())'")
            }
            return seconds
        }
        func count(for flag: String) throws(Problem) -> Int {
            let text = try value(for: flag)
            guard let count = Int(text), count > 0 else {
                throw .usage("\(flag) takes a positive number, got '\(text.replacingControlCharacters())'")
            }
            return count
        }
        var explicitSocket: String?
        var backendText: String?
        var parsed = DaemonConfiguration(socketPath: "", vaultFilePath: "", environment: environment)
        while let argument = remaining.popFirst() {
            switch argument {
            case "--socket": explicitSocket = try value(for: argument)
            case "--backend": backendText = try value(for: argument)
            case "--secret-service-provider":
                parsed.secretServiceProvider = try SecretServiceProviderMode.parse(try value(for: argument), origin: argument)
                parsed.secretServiceProviderOrigin = argument
            case "--lock-after": parsed.lockAfter = try duration(for: argument, example: "15m or 2h")
            case "--refresh-ahead": parsed.refreshAhead = try duration(for: argument, example: "5m")
            case "--remote-refresh": parsed.remoteRefresh = try duration(for: argument, example: "30s or 5m")
            case "--space-interval": parsed.spaceInterval = try duration(for: argument, example: "20s or 1m")
            case "--idle-timeout": parsed.idleTimeout = try duration(for: argument, example: "30s or 5m")
            case "--request-timeout": parsed.requestTimeout = try duration(for: argument, example: "10s or 1m")
            case "--approval-timeout":
                parsed.approvalTimeout = try duration(for: argument, example: "20s")
                guard parsed.approvalTimeout <= DaemonConfiguration.maxApprovalTimeout else {
                    throw .usage("--approval-timeout is at most \(Int(DaemonConfiguration.maxApprovalTimeout))s (clients wait 30 s for an answer)")
                }
            case "--max-connections": parsed.maxConnections = try count(for: argument)
            case "--max-connections-per-process": parsed.maxConnectionsPerProcess = try count(for: argument)
            case "--log-file": parsed.logFile = try value(for: argument)
            case "--verbose": parsed.verbose = true
            case "--confirm-all": parsed.confirmAll = true
            case "--trust-bus-pids": parsed.trustBusPIDs = true
            case "--version": return .version
            case "--help", "-h": return .help
            default: throw .usage("unknown option '\(argument.replacingControlCharacters())'\n\n\(usage)")
            }
        }

        parsed.socketPath = SocketLocation.path(explicit: explicitSocket, environment: environment)
        // The configuration file: each setting overridden by the environment and the flags.
        parsed.configFilePath = ConfigFile.path(environment: environment)
        let config: ConfigFile?
        do {
            config = try ConfigFile.load(environment: environment)
        } catch {
            throw Problem(message: "\(error)", exitStatus: 1)
        }
        func set(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        do {
            if set("VAULT_FILE") == nil, let file = config?[.file] {
                parsed.vaultFilePath = file
            } else {
                parsed.vaultFilePath = try VaultFileLocation.path(environment: environment)
            }
        } catch {
            throw Problem(message: "\(error)", exitStatus: 1)
        }
        do {
            if let backendText {
                (parsed.backend, parsed.backendOrigin) = (try StoreSelector.preference(backendText), "--backend")
            } else if let text = set("VAULT_BACKEND") {
                (parsed.backend, parsed.backendOrigin) = (try StoreSelector.preference(text), "VAULT_BACKEND")
            } else if let config, let text = config[.backend] {
                (parsed.backend, parsed.backendOrigin) = (try StoreSelector.preference(text), "backend in \(config.path)")
            }
        } catch {
            throw .usage("\(error)")
        }
        if let text = environment["VAULT_KDF_LOG2N"] {
            let range = Scrypt.Parameters.minimum.log2N...Scrypt.Parameters.maximumLog2N
            guard let log2N = UInt8(text), range.contains(log2N) else {
                throw .usage("VAULT_KDF_LOG2N must be a number from \(range.lowerBound) to \(range.upperBound), got '\(text.replacingControlCharacters())'")
            }
            parsed.kdfParameters.log2N = log2N
        }
        func environmentDuration(_ name: String, example: String) throws(Problem) -> Double? {
            guard let text = environment[name] else { return nil }
            guard let seconds = DurationText.seconds(text) else {
                throw .usage("\(name) takes a duration such as \(example), got '\(text.replacingControlCharacters())'")
            }
            return seconds
        }
        if parsed.secretServiceProviderOrigin != "--secret-service-provider", let text = set("VAULT_SECRET_SERVICE_PROVIDER") {
            parsed.secretServiceProvider = try SecretServiceProviderMode.parse(text, origin: "VAULT_SECRET_SERVICE_PROVIDER")
            parsed.secretServiceProviderOrigin = "VAULT_SECRET_SERVICE_PROVIDER"
        }
        switch environment["VAULT_TRUST_BUS_PIDS"] {
        case nil, "", "0": break
        case "1": parsed.trustBusPIDs = true
        case let text?: throw .usage("VAULT_TRUST_BUS_PIDS takes 1 or 0, got '\(text.replacingControlCharacters())'")
        }
        parsed.secretServicePromptTimeout = try environmentDuration("VAULT_SECRET_SERVICE_PROMPT_TIMEOUT", example: "60 or 2m") ?? parsed.secretServicePromptTimeout
        parsed.secretServiceTimeout = try environmentDuration("VAULT_SECRET_SERVICE_TIMEOUT", example: "5 or 10s") ?? parsed.secretServiceTimeout
        parsed.httpTimeout = try environmentDuration("VAULT_HTTP_TIMEOUT", example: "10 or 30s") ?? parsed.httpTimeout
        if !arguments.contains("--remote-refresh") {
            parsed.remoteRefresh = try environmentDuration("VAULT_REMOTE_REFRESH", example: "30s or 5m") ?? parsed.remoteRefresh
        }
        if !arguments.contains("--space-interval") {
            parsed.spaceInterval = try environmentDuration("VAULT_SPACE_INTERVAL", example: "20s or 1m") ?? parsed.spaceInterval
        }
        parsed.passphraseSource = PassphraseSource.resolve(environment: environment)
            ?? config.flatMap { config in config[.passphraseFile].map { PassphraseSource.configured(path: $0, config: config.path) } }
        return .run(parsed)
    }
}
