import VaultCore
import VaultCrypto
import VaultStores

/// Everything vaultd is told at start (flags and environment), already validated.
public struct DaemonConfiguration: Sendable {
    public var socketPath: String
    /// Which store to use: `--backend`, `VAULT_BACKEND`, or `backend` in the configuration file.
    public var backend: StoreSelector.Preference = .auto
    /// Where `backend` came from, for `status`: "--backend", "VAULT_BACKEND", "backend in PATH".
    public var backendOrigin = "the default"
    /// The configuration file's path for this environment (whether or not it exists); nil
    /// without HOME or XDG_CONFIG_HOME. `migrate` records its destination there.
    public var configFilePath: String?
    /// The encrypted file store's path.
    public var vaultFilePath: String
    public var kdfParameters: Scrypt.Parameters = .default
    /// Drop keys after this many seconds without a client request that touches items; nil: never.
    public var lockAfter: Double?
    /// Close connections idle this long (seconds).
    public var idleTimeout: Double = 300
    /// How long a request that needs approval waits for the approver's answer before it is denied
    /// (seconds; at most `maxApprovalTimeout`, below the clients' 30 s wait for an answer).
    public var approvalTimeout: Double = 20
    public static let maxApprovalTimeout = 25.0
    /// Every read of every item needs the approver's answer unless a rule allows the caller.
    public var confirmAll = false
    /// A request line must arrive whole within this many seconds of its first byte.
    public var requestTimeout: Double = 10
    /// Connections open at once; beyond it the longest-idle connection is closed to admit a new
    /// one, or the new one is refused when none is idle.
    public var maxConnections: Int = 128
    /// Connections one process (peer pid) may hold open at once; nil: a quarter of
    /// `maxConnections`, so three hostile processes cannot fill every slot.
    public var maxConnectionsPerProcess: Int?

    /// The per-process cap in force.
    public var connectionsPerProcessLimit: Int { maxConnectionsPerProcess ?? max(1, maxConnections / 4) }
    /// Where the passphrase for unlocking at start comes from; nil: start locked.
    public var passphraseSource: PassphraseSource?
    /// Seconds any one Secret Service call may take.
    public var secretServiceTimeout: Double = 5
    /// Whether to serve the Secret Service D-Bus API (`SecretServiceProviderMode`), and where that came from.
    public var secretServiceProvider: SecretServiceProviderMode = .auto
    public var secretServiceProviderOrigin = "the default"
    /// Seconds a Secret Service client's unlock prompt waits for the vault to be unlocked
    /// before it is dismissed (`VAULT_SECRET_SERVICE_PROMPT_TIMEOUT`).
    public var secretServicePromptTimeout: Double = 60
    /// On a bus that gives no ProcessFD, let rules match a D-Bus caller by the pid the bus reports
    /// (`--trust-bus-pids`, `VAULT_TRUST_BUS_PIDS=1`): a program of the user that delays its
    /// connection's Hello can pass for an allowed program (docs/threat-model.md, attack 3).
    public var trustBusPIDs = false
    /// Refresh sessions in the background once they expire within this many seconds; nil: only on demand.
    public var refreshAhead: Double?
    /// Seconds between asking each remote engine whether its cached secrets changed.
    public var remoteRefresh: Double = 30
    /// Seconds between sync rounds of each space (pull what others wrote, push what changed here).
    public var spaceInterval: Double = 20
    /// Seconds any one request to a sign-in provider may take.
    public var httpTimeout: Double = 10
    /// Append the log here instead of stderr (`--log-file`).
    public var logFile: String?
    /// Log every request (names only) at debug level (`--verbose`).
    public var verbose = false
    public var environment: [String: String]

    public init(socketPath: String, vaultFilePath: String, environment: [String: String]) {
        self.socketPath = socketPath
        self.vaultFilePath = vaultFilePath
        self.environment = environment
    }
}
