#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol
import VaultStores
import VaultSystem

/// status, migrate, doctor: the stores themselves.
extension RequestDispatcher {
    /// A migration's progress line: with names only under `--verbose`; otherwise what happened
    /// without the item ("copied 3 of 9").
    private func logMigration(_ line: String) {
        let steps = ["copied ", "removed ", "conflict", "left in place"]
        let unnamed = steps.contains(where: line.hasPrefix) ? String(line.prefix { $0 != ":" }) : "collapsed an item's duplicates"
        if logger.minimumLevel <= .debug { logger.info("migrate: \(line)") } else { logger.info("migrate: \(unnamed)") }
    }

    func status() -> StatusBody {
        let reason = store.reasonChosen
        let (storeStatus, exists, own) = (try? store.read { store in
            let status = store.status()
            // vault's own items (access rules, the audit key) are not the user's: not counted.
            let own = status.isLocked ? 0 : ItemKey.reservedServices.reduce(0) { $0 + ((try? store.list(service: $1).count) ?? 0) }
            return (status, (store as? any PassphraseProtected)?.exists ?? true, own)
        }) ?? (StoreStatus(kind: .file, isLocked: true, location: "", itemCount: nil), false, 0)
        var body = StatusBody(
            version: VaultVersion.string, protocolVersion: VaultVersion.protocolVersion, pid: getpid(),
            backend: storeStatus.kind.rawValue, backendReason: reason, locked: storeStatus.isLocked,
            location: storeStatus.location, exists: exists, items: storeStatus.itemCount.map { max(0, $0 - own) }, socket: socketPath,
            lockReason: storeStatus.isLocked ? store.currentLockReason : nil,
            sessions: storeStatus.isLocked ? nil : (try? store.read { try $0.list(service: nil) })?.filter { $0.kind == .session }.map(describe))
        if storeStatus.unaddressableCount > 0 { body.unaddressable = storeStatus.unaddressableCount }
        if storeStatus.duplicateCount > 0 { body.duplicates = storeStatus.duplicateCount }
        (body.secretServiceProvider, body.secretServiceProviderReason) = secretServiceProvider.current
        if !storeStatus.isLocked, let remotes = try? remotes.bodies(probe: false), !remotes.isEmpty { body.remotes = remotes }
        if !storeStatus.isLocked, case let states = spaces.states(), !states.isEmpty { body.spaces = states.map { spaces.body($0, devices: false) } }
        return body
    }

    func migrate(_ request: MigrateRequest) throws -> ResultBody {
        let target = request.destination
        let current = store.current.store.kind
        // While vaultd serves the Secret Service, the one on the bus is vaultd itself, serving
        // this file store: no store of its own, neither to move items to nor to take them from
        // (taking them would delete each item through D-Bus from the store it was just found in).
        if secretServiceProvider.current.serving {
            if target == .secretService {
                throw VaultError.invalidInput("vaultd itself serves the Secret Service, from this file store: migrating to it would move the items into themselves. Run another provider (GNOME Keyring) and start vaultd with --secret-service-provider off first")
            }
            if target == current {
                throw VaultError.invalidInput("vaultd itself serves the Secret Service, from this file store: there is no other Secret Service store to take items from. To move items from GNOME Keyring or KeePassXC, run it as the provider and start vaultd with --secret-service-provider off first")
            }
        }
        try refuseWhenTheSecretServiceIsThisVault()
        let source: StoreKind
        let report: StoreMigration.Report
        var reason = store.reasonChosen
        if target == current {
            // Already serving from the target: finish moving what the other store still holds
            // (an interrupted migration after which vaultd restarted on the target, say).
            guard let (other, kind) = try otherStoreWithItems(besides: current, passphrase: request.passphrase) else {
                throw VaultError.invalidInput("vaultd already uses the \(target.rawValue) store and the other store holds no items; nothing to migrate")
            }
            source = kind
            try unlockForMigration(passphrase: request.passphrase)
            logger.info("moving the items left in the \(kind.rawValue) store into the \(target.rawValue) store in use")
            report = try store.absorb(from: other) { line in logMigration(line) }
        } else {
            source = current
            let destination = try catalog.openStore(target, passphrase: request.passphrase)
            logger.info("migrating every item from the \(source.rawValue) store to the \(target.rawValue) store")
            reason = "migrated from the \(source.rawValue) store by 'vaultctl migrate'"
            report = try store.migrate(to: destination, reason: reason) { line in logMigration(line) }
        }
        // The choice survives a restart: recorded in the configuration file.
        let recorded = recordBackend(target)
        switch recorded {
        case .success(let path): reason += "; recorded as 'backend = \(target.rawValue)' in \(path)"
        case .failure(let problem): reason += "; not recorded (\(problem)): set VAULT_BACKEND=\(target.rawValue) to keep it after a restart"
        }
        store.setReason(reason)
        logger.info("migration done: \(report.copied) copied, \(report.alreadyPresent) already there, \(report.removed) removed, "
                    + "\(report.conflicts.count) conflict(s), \(report.collapsed.count) key(s) with duplicates collapsed, \(report.leftInPlace.count) unaddressable item(s) left in place")
        var body = MigrationBody(
            from: source.rawValue, to: target.rawValue, copied: report.copied, alreadyPresent: report.alreadyPresent,
            removed: report.removed, conflicts: report.conflicts.map { KeyBody(service: $0.service, account: $0.account) })
        if !report.collapsed.isEmpty { body.collapsed = report.collapsed.map { KeyBody(service: $0.service, account: $0.account) } }
        if !report.leftInPlace.isEmpty { body.leftInPlace = report.leftInPlace.map(UnaddressableBody.init) }
        if case .success(let path) = recorded { body.recordedIn = path }
        return ResultBody(migration: body)
    }

    /// Another vaultd may serve the Secret Service from this same vault file: then the Secret
    /// Service store `migrate` would move items to or from is this file store itself
    /// (`SecretServiceOwner`). Asked only when there is a session bus; without one, `migrate`
    /// reaches no Secret Service either.
    private func refuseWhenTheSecretServiceIsThisVault() throws {
        let environment = catalog.configuration.environment
        guard StoreSelector.missingBus(environment) == nil, let address = Daemon.sessionBusAddress(environment) else { return }
        let ours = catalog.configuration.vaultFilePath
        let owner = try SecretServiceOwner.identify(address: address)
        if case .silentVaultd(let pid, let executable) = owner {
            throw VaultError.invalidInput(
                "the Secret Service on this session bus is a vaultd (pid \(pid), \(executable)) that does not say which vault file it serves (an older version): if it serves this one (\(ours)), migrating between them would move the items into themselves, and delete each one as moved. Nothing was migrated; upgrade that vaultd or stop it first")
        }
        guard case .vaultd(let served) = owner else { return }
        guard SecretServiceOwner.isSameFile(served, as: ours) else { return }
        throw VaultError.invalidInput(
            "the Secret Service on this session bus is another vaultd, serving this same vault file (\(ours)): migrating between them would move the items into themselves, and delete each one as moved. Nothing was migrated; to move the items to or from GNOME Keyring or KeePassXC, stop that vaultd (or start it with --secret-service-provider off) and run that provider")
    }

    /// The persistent store other than `current`, opened, when it holds any item; nil when it
    /// holds none or cannot be reached. A file store that does not exist is never created here.
    private func otherStoreWithItems(besides current: StoreKind, passphrase: SecretBytes?) throws -> (any VaultStore, StoreKind)? {
        let kind: StoreKind = current == .file ? .secretService : .file
        guard StoreKind.persistent.contains(current) else { return nil }
        // The file's header counts its items: an empty vault file needs no passphrase to skip.
        if kind == .file && (catalog.fileStore().headerItemCount ?? 0) == 0 { return nil }
        if kind == .secretService && StoreSelector.missingBus(catalog.configuration.environment) != nil { return nil }
        let other: any VaultStore
        do {
            other = try catalog.openStore(kind, passphrase: passphrase)
        } catch let error as VaultError {
            switch error {
            case .passphraseUnavailable, .wrongPassphrase: throw error  // the file store: ask for its passphrase
            default: return nil
            }
        }
        let empty = try other.list(service: nil).isEmpty && other.unaddressable(service: nil).isEmpty
        return empty ? nil : (other, kind)
    }

    /// The store in use must be unlocked to take items: a locked file store is unlocked with the
    /// request's passphrase, or the passphrase is asked for (as when migrating to it).
    private func unlockForMigration(passphrase: SecretBytes?) throws {
        try store.perform { active in
            guard active.status().isLocked, active is any PassphraseProtected else { return }
            guard let passphrase else {
                throw VaultError.passphraseUnavailable("the file store in use is locked: it needs its passphrase to take the items; run this on a terminal, or pipe the passphrase to 'vaultctl migrate --to file'")
            }
            try active.unlock(passphrase: passphrase)
        }
        store.setLockReason(nil)
    }

    /// Writes `backend = KIND` into the configuration file (created 0600 in a 0700 directory when
    /// missing; its other lines kept), so the next vaultd starts on the store migrated to.
    private func recordBackend(_ kind: StoreKind) -> Result<String, RecordingProblem> {
        let configuration = catalog.configuration
        guard let path = configuration.configFilePath else { return .failure(RecordingProblem("neither HOME nor XDG_CONFIG_HOME is set")) }
        do {
            let text = try ConfigFile.text(of: path, with: .backend, kind.rawValue, home: configuration.environment["HOME"])
            try PrivateDirectory.create(FileSystem.parentDirectory(of: path))
            try AtomicFileWriter.write(Array(text.utf8), to: path)
            logger.info("recorded 'backend = \(kind.rawValue)' in \(path)")
            if let overriding = configuration.environment["VAULT_BACKEND"], !overriding.isEmpty, overriding != kind.rawValue {
                return .failure(RecordingProblem("written to \(path), but VAULT_BACKEND=\(overriding) in vaultd's environment overrides it"))
            }
            return .success(path)
        } catch {
            logger.error("could not record the store in \(path): \(error)")
            return .failure(RecordingProblem("\(path): \(error)"))
        }
    }

    func doctor() throws -> ResultBody {
        let reason = store.reasonChosen
        var report = try store.perform { active in Doctor(catalog: catalog, active: active, activeReason: reason, provider: secretServiceProvider.current, callerBinding: secretServiceProvider.callerBinding).run() }
        if let remotes = try? remotes.bodies(probe: true), !remotes.isEmpty { report.remotes = remotes }
        if case let states = spaces.states(), !states.isEmpty { report.spaces = states.map { spaces.body($0, devices: true) } }
        return ResultBody(doctor: report)
    }
}

/// Why `migrate` could not record its destination in the configuration file.
struct RecordingProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
