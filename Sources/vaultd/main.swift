// vaultd: the per-user vault daemon. Parses flags and environment, then hands over to VaultDaemon.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import VaultCore
import VaultDaemon
import VaultProtocol
import VaultStores

let usage = """
    usage: vaultd [options]

    The per-user vault daemon. Clients (vaultctl, VaultClient) talk to it over a Unix socket.

    options:
      --socket PATH          listen here (default: $VAULT_SOCKET, $XDG_RUNTIME_DIR/vault/vault.sock,
                             or /tmp/vault-UID/vault.sock)
      --backend NAME         auto (default), secret-service or file; or VAULT_BACKEND
      --lock-after DURATION  drop keys after this long without a request (e.g. 15m, 2h)
      --refresh-ahead DURATION  refresh sign-in sessions in the background once they expire
                             within DURATION (e.g. 5m), so 'vaultctl token' never waits
      --idle-timeout DURATION  close client connections idle this long (default: 5m)
      --max-connections N    refuse connections beyond N at once (default: 128)
      --log-file PATH        append logs here instead of stderr (created 0600)
      --verbose              log every request (names only, never secrets)
      --version, --help

    environment: VAULT_BACKEND, VAULT_FILE, VAULT_PASSPHRASE_FILE, CREDENTIALS_DIRECTORY,
    VAULT_PASSPHRASE, VAULT_KDF_LOG2N (scrypt cost of new vaults, 14-22, default 17),
    VAULT_SECRET_SERVICE_TIMEOUT (seconds, default 5), VAULT_HTTP_TIMEOUT (sign-in providers,
    seconds, default 10). See the README.

    """

func die(_ message: String, code: Int32 = 1) -> Never {
    let line = "vaultd: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(code)
}

var environment = ProcessEnvironment.current
var explicitSocket: String?
var lockAfter: Double?
var idleTimeout = 300.0
var maxConnections = 128
var logFile: String?
var verbose = false
var backendText: String?
var refreshAhead: Double?

var arguments = CommandLine.arguments.dropFirst()
@MainActor func value(for flag: String) -> String {
    guard let value = arguments.popFirst() else { die("\(flag) needs a value\n\n\(usage)", code: 2) }
    return value
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--socket": explicitSocket = value(for: argument)
    case "--backend": backendText = value(for: argument)
    case "--lock-after":
        let text = value(for: argument)
        guard let seconds = DurationText.seconds(text) else { die("--lock-after takes a duration such as 15m or 2h, got '\(text)'", code: 2) }
        lockAfter = seconds
    case "--refresh-ahead":
        let text = value(for: argument)
        guard let seconds = DurationText.seconds(text) else { die("--refresh-ahead takes a duration such as 5m, got '\(text)'", code: 2) }
        refreshAhead = seconds
    case "--idle-timeout":
        let text = value(for: argument)
        guard let seconds = DurationText.seconds(text) else { die("--idle-timeout takes a duration such as 30s or 5m, got '\(text)'", code: 2) }
        idleTimeout = seconds
    case "--max-connections":
        let text = value(for: argument)
        guard let count = Int(text), count > 0 else { die("--max-connections takes a positive number, got '\(text)'", code: 2) }
        maxConnections = count
    case "--log-file": logFile = value(for: argument)
    case "--verbose": verbose = true
    case "--version":
        print("vaultd \(VaultVersion.string)")
        exit(0)
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    default:
        die("unknown option '\(argument)'\n\n\(usage)", code: 2)
    }
}

if let logFile {
    let fd = open(logFile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { die("cannot open the log file \(logFile): \(Errno.current)") }
    dup2(fd, 2)
    close(fd)
}

let logger = Logger(handler: StandardErrorLogHandler(environment: environment), minimumLevel: verbose ? .debug : .info)
ProcessHygiene.ignoreSIGPIPE()
if let problem = ProcessHygiene.disableCoreDumps() {
    logger.warning("could not disable core dumps: \(problem)")
}

// systemd socket activation: our socket is fd 3 when LISTEN_PID names us.
var inheritedSocket: FileDescriptor?
if environment["LISTEN_PID"] == String(getpid()), let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1 {
    inheritedSocket = FileDescriptor(rawValue: 3)
}
for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
    unsetenv(name)
    environment[name] = nil
}

let socketPath = SocketLocation.path(explicit: explicitSocket, environment: environment)
let vaultFile: String
do {
    vaultFile = try VaultFileLocation.path(environment: environment)
} catch {
    die("\(error)")
}

var kdf = Scrypt.Parameters.default
if let text = environment["VAULT_KDF_LOG2N"] {
    guard let log2N = UInt8(text), (Scrypt.Parameters.minimum.log2N...Scrypt.Parameters.maximumLog2N).contains(log2N) else {
        die("VAULT_KDF_LOG2N must be a number from \(Scrypt.Parameters.minimum.log2N) to \(Scrypt.Parameters.maximumLog2N), got '\(text)'", code: 2)
    }
    kdf.log2N = log2N
}

var configuration = DaemonConfiguration(socketPath: socketPath, vaultFilePath: vaultFile, environment: environment)
configuration.lockAfter = lockAfter
configuration.refreshAhead = refreshAhead
configuration.idleTimeout = idleTimeout
configuration.maxConnections = maxConnections
configuration.kdfParameters = kdf
configuration.passphraseSource = PassphraseSource.resolve(environment: environment, allowTerminal: false)

let preference: StoreSelector.Preference
do {
    preference = try StoreSelector.preference(backendText ?? environment["VAULT_BACKEND"])
} catch {
    die("\(error)", code: 2)
}
var secretServiceTimeout = 5.0
if let text = environment["VAULT_SECRET_SERVICE_TIMEOUT"] {
    guard let seconds = DurationText.seconds(text) else { die("VAULT_SECRET_SERVICE_TIMEOUT takes a duration such as 5 or 10s, got '\(text)'", code: 2) }
    secretServiceTimeout = seconds
}
let selection = StoreSelector.select(preference, environment: environment, secretServiceTimeout: secretServiceTimeout) {
    EncryptedFileStore(path: vaultFile, options: .init(kdfParameters: kdf))
}
configuration.secretServiceTimeout = secretServiceTimeout
if let text = environment["VAULT_HTTP_TIMEOUT"] {
    guard let seconds = DurationText.seconds(text) else { die("VAULT_HTTP_TIMEOUT takes a duration such as 10 or 30s, got '\(text)'", code: 2) }
    configuration.httpTimeout = seconds
}
let daemon = Daemon(configuration: configuration, store: selection.store, backendReason: selection.reason, logger: logger)
do {
    try daemon.start(inheritedSocket: inheritedSocket)
} catch let error as SocketListener.SetupError {
    if case .alreadyRunning = error {
        logger.notice("\(error); this instance exits")
        exit(0)
    }
    die("\(error)")
} catch {
    die("\(error)")
}
dispatchMain()
