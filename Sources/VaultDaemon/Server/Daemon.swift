import CVaultShims
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol
import VaultStores
import VaultSystem

/// vaultd: accepts connections, checks each peer's uid, gives each admitted connection a thread
/// (at most `maxConnections`, `maxConnectionsPerProcess` for one peer pid, the longest-idle closed
/// to make room), auto-locks, and shuts down gracefully on SIGTERM or SIGINT.
public final class Daemon: @unchecked Sendable {
    public let configuration: DaemonConfiguration
    public let logger: Logger
    let listener: SocketListener
    let store: ActiveStore
    let dispatcher: RequestDispatcher
    private let acceptQueue = DispatchQueue(label: "vaultd.accept")
    private let connections: ConnectionTable
    private let inFlight = DispatchGroup()
    private let busyPoll = BusyPoll(budget: BusyPoll.defaultBudget)
    private var acceptSource: DispatchSourceRead?
    private var timers: [DispatchSourceTimer] = []
    private var signalSources: [DispatchSourceSignal] = []
    private let ownUID = getuid()
    private let notifier: ServiceNotifier
    /// Refusals, evictions and accept failures: summarized, since any local client can cause them.
    private let events: RateLimitedLog

    /// Chooses the store (which may probe the session bus) and prepares to serve.
    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        listener = SocketListener(path: configuration.socketPath)
        let catalog = StoreCatalog(configuration: configuration)
        let selection = catalog.select()
        store = ActiveStore(store: selection.store, reason: selection.reason)
        dispatcher = RequestDispatcher(store: store, catalog: catalog, socketPath: configuration.socketPath, logger: logger)
        notifier = ServiceNotifier(environment: configuration.environment)
        events = RateLimitedLog(logger: logger)
        connections = ConnectionTable(maxConnections: configuration.maxConnections, perProcessLimit: configuration.connectionsPerProcessLimit)
    }

    /// Binds (or adopts systemd's socket), unlocks with a non-interactive passphrase source, and
    /// starts serving. Returns once serving; call `dispatchMain()` afterwards.
    public func start(inheritedSocket: FileDescriptor?) throws {
        // Before the socket exists: whoever sees vaultd answer may stop it at once, and a SIGTERM
        // arriving between ignoring the signal and registering its source would be lost.
        installSignalHandlers()
        armDispatchTimersEarly()
        if let inheritedSocket {
            try listener.adopt(inheritedSocket)
            logger.info("using the socket passed by systemd for \(configuration.socketPath)")
        } else {
            try listener.bind()
        }
        unlockAtStart()
        try startSecretServiceProvider()
        startAccepting()
        startTimers()
        let (active, reason) = store.current
        logger.info("vaultd \(VaultVersion.string) serving on \(configuration.socketPath) with the \(active.kind.rawValue) store (\(reason))")
        // Requests queue behind the start-up unlock (it holds the store's write side), so READY=1 can go out now.
        notifier.notify("READY=1\nSTATUS=serving on \(configuration.socketPath), \(active.kind.rawValue) store\nMAINPID=\(getpid())")
    }

    private func unlockAtStart() {
        guard store.current.store is any PassphraseProtected else { return }
        guard let source = configuration.passphraseSource else {
            store.setLockReason("vaultd started without a passphrase source: run 'vaultctl unlock' (or give vaultd one: docs/configuration.md, \"Passphrases\")")
            logger.info("starting locked: no non-interactive passphrase source; run 'vaultctl unlock'")
            return
        }
        let logger = logger
        let existed = (store.current.store as? any PassphraseProtected)?.exists ?? true
        store.unlockAsync(from: source, environment: configuration.environment) { error in
            if let error {
                logger.error("could not unlock with the passphrase from \(source): \(error)")
            } else {
                logger.info(existed ? "unlocked with the passphrase from \(source)" : "created a new vault, passphrase from \(source)")
            }
        }
    }

    private func startAccepting() {
        guard let fd = listener.descriptor else { return }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: acceptQueue)
        source.setEventHandler { [self] in acceptPending(fd) }
        acceptSource = source
        source.resume()
    }

    private func acceptPending(_ listening: FileDescriptor) {
        while true {
            let client: FileDescriptor
            do {
                guard let accepted = try UnixSocket.accept(listening) else { return }
                client = accepted
            } catch {
                pauseAccepting(after: error)
                return
            }
            admit(client)
        }
    }

    /// Out of descriptors (EMFILE, ENFILE) or memory: the connection stays queued, so the source
    /// would fire again at once. Accepting stops for a moment instead of spinning: the accept
    /// queue sleeps (it is vaultd's own, not the cooperative pool), then the source fires again.
    /// Not a dispatch timer to resume it: a timer armed while the process is out of descriptors
    /// may never fire (`armDispatchTimersEarly`), and accepting would then never resume (a
    /// ConnectionSlotTests run hung that way, vaultd's listening backlog full).
    private func pauseAccepting(after error: any Error) {
        events.record("accept failures (accepting paused \(Self.acceptPause) s each)", detail: "accept failed: \(error); pausing accepting for \(Self.acceptPause) s")
        usleep(UInt32(Self.acceptPause * 1_000_000))
    }

    /// libdispatch makes its timer descriptor (a timerfd) when the first timer is armed. Armed
    /// while the process is out of descriptors, that timer never fires, nor does any armed after
    /// it, until one is armed with a descriptor free (checked with a program that fills its
    /// descriptor table: a timer armed first at start fired on time with the table full).
    /// vaultd's timers (the Secret Service's call and prompt time-outs, the log's summaries,
    /// refreshes, auto-lock) must fire when a burst of connections has used every descriptor, so
    /// one is armed, and waited for, before anything is served. libdispatch keeps one descriptor
    /// per clock: this arms the uptime clock's (`deadline:`), which every timer of vaultd uses; a
    /// timer on the wall clock (`wallDeadline:`) would need one armed here too.
    private func armDispatchTimersEarly() {
        let fired = DispatchSemaphore(value: 0)
        acceptQueue.asyncAfter(deadline: .now() + 0.001) { fired.signal() }
        fired.wait()
    }

    private static let acceptPause = 0.2

    /// Checks a new connection's peer and admits it (`ConnectionTable`: the per-process cap first,
    /// then the overall cap, which closes the longest-idle connection, never one mid-request, or
    /// refuses), then gives it its thread.
    private func admit(_ client: FileDescriptor) {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        guard vault_peer_credentials(client.rawValue, &pid, &uid, &gid) == 0 else {
            events.record("connections refused: credentials unreadable", detail: "refused a connection whose credentials could not be read: \(Errno.current)")
            client.close()
            return
        }
        guard uid == ownUID else {
            events.record("connections refused: another uid", detail: "refused connection from pid \(pid) uid \(uid): only uid \(ownUID) is served")
            client.close()
            return
        }
        let number: Int
        switch connections.admit(client, pid: pid) {
        case .overProcessShare(let open):
            events.record(
                "connections refused: one process over \(connections.perProcessLimit)",
                detail: "refused connection from pid \(pid): it has \(open) open, the limit for one process")
            refuse(client, "this process has \(open) connections to vaultd open, the limit for one process; close some")
            return
        case .full(let open):
            events.record(
                "connections refused: all \(connections.maxConnections) busy",
                detail: "refused connection from pid \(pid): \(open) connections open (the limit), none idle")
            refuse(client, "vaultd has \(open) connections open, its limit, and none is idle; try again shortly")
            return
        case .admitted(let admitted, let evicted):
            number = admitted
            if let evicted {
                events.record(
                    "idle connections closed to admit new ones",
                    detail: "closed idle connection \(evicted.number) (pid \(evicted.pid)) to admit one from pid \(pid): \(connections.maxConnections) connections open, the limit")
            }
        }
        let connection = Connection(
            number: number, fd: client, peerPID: pid, dispatcher: dispatcher, logger: logger, events: events,
            idleTimeout: configuration.idleTimeout, requestTimeout: configuration.requestTimeout, busyPoll: busyPoll,
            table: connections)
        inFlight.enter()
        let started = connection.start { [self] in inFlight.leave() }
        if !started {
            logger.error("could not start a thread for connection \(number) from pid \(pid); closing it")
            inFlight.leave()
            connection.abandon()
        }
    }

    private func refuse(_ client: FileDescriptor, _ message: String) {
        var refusal = MessageCodec.encode(ResponseLine(id: nil, .failure(ErrorBody(.unavailable, message))))
        UnixSocket.setTimeouts(client, seconds: 1)
        try? client.sendAll(refusal)
        refusal.removeAll()
        client.close()
    }

    private let refreshQueue = DispatchQueue(label: "vaultd.refresh")
    /// Remote engines' refresh blocks on their HTTP answers: its own queue, apart from sessions'.
    private let remoteQueue = DispatchQueue(label: "vaultd.remote-refresh")
    /// Spaces' rounds block on the engine too, and must not wait behind a remote's refresh.
    private let spaceQueue = DispatchQueue(label: "vaultd.space-sync")
    /// The auto-lock check waits for a write in progress: not on the accept queue.
    private let autoLockQueue = DispatchQueue(label: "vaultd.auto-lock")

    private func startTimers() {
        if let ahead = configuration.refreshAhead {
            // Its own queue: refreshes block on HTTP and must hold up neither accepting nor the pool.
            let refresher = DispatchSource.makeTimerSource(queue: refreshQueue)
            refresher.schedule(deadline: .now() + 0.25, repeating: min(max(ahead / 3, 0.25), 30))
            refresher.setEventHandler { [self] in dispatcher.refreshSessions(expiringWithin: ahead) }
            refresher.resume()
            timers.append(refresher)
        }
        let remotes = DispatchSource.makeTimerSource(queue: remoteQueue)
        remotes.schedule(deadline: .now() + 1, repeating: configuration.remoteRefresh)
        remotes.setEventHandler { [self] in dispatcher.remotes.refreshAll() }
        remotes.resume()
        timers.append(remotes)
        let spaces = DispatchSource.makeTimerSource(queue: spaceQueue)
        spaces.schedule(deadline: .now() + configuration.spaceInterval, repeating: configuration.spaceInterval)
        spaces.setEventHandler { [self] in dispatcher.spaces.syncAll() }
        spaces.resume()
        timers.append(spaces)
        if let lockAfter = configuration.lockAfter {
            let autoLock = DispatchSource.makeTimerSource(queue: autoLockQueue)
            autoLock.schedule(deadline: .now() + 1, repeating: min(max(lockAfter / 4, 0.25), 10))
            autoLock.setEventHandler { [self] in store.lockIfIdle(for: lockAfter, logger: logger) }
            autoLock.resume()
            timers.append(autoLock)
        }
    }

    private func installSignalHandlers() {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: acceptQueue)
            source.setEventHandler { [self] in shutDown(reason: signalNumber == SIGTERM ? "SIGTERM" : "SIGINT") }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Stops accepting, lets requests in flight finish, removes the socket, drops keys, exits 0.
    func shutDown(reason: String) -> Never {
        logger.info("\(reason): shutting down")
        notifier.notify("STOPPING=1")
        acceptSource?.cancel()
        listener.close()
        for timer in timers { timer.cancel() }
        connections.stopReading()
        if inFlight.wait(timeout: .now() + 10) == .timedOut {
            logger.warning("some connections did not finish within 10 s")
        }
        try? store.lock()
        logger.info("stopped")
        exit(0)
    }
}
