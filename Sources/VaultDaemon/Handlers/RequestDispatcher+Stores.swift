#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol

/// status, migrate, doctor: the stores themselves.
extension RequestDispatcher {
    func status() -> StatusBody {
        let reason = store.reasonChosen
        let (storeStatus, exists) = (try? store.perform { store in
            (store.status(), (store as? any PassphraseProtected)?.exists ?? true)
        }) ?? (StoreStatus(kind: .file, isLocked: true, location: "", itemCount: nil), false)
        var body = StatusBody(
            version: VaultVersion.string, protocolVersion: VaultVersion.protocolVersion, pid: getpid(),
            backend: storeStatus.kind.rawValue, backendReason: reason, locked: storeStatus.isLocked,
            location: storeStatus.location, exists: exists, items: storeStatus.itemCount, socket: socketPath,
            lockReason: storeStatus.isLocked ? store.currentLockReason : nil,
            sessions: storeStatus.isLocked ? nil : (try? store.perform { try $0.list(service: nil) })?.filter { $0.kind == .session }.map(describe))
        if storeStatus.unaddressableCount > 0 { body.unaddressable = storeStatus.unaddressableCount }
        if storeStatus.duplicateCount > 0 { body.duplicates = storeStatus.duplicateCount }
        return body
    }

    func migrate(_ request: MigrateRequest) throws -> ResultBody {
        let target = request.destination
        let source = store.current.store.kind
        guard target != source else {
            throw VaultError.invalidInput("vaultd already uses the \(target.rawValue) store; nothing to migrate")
        }
        let destination = try catalog.openStore(target, passphrase: request.passphrase)
        logger.info("migrating every item from the \(source.rawValue) store to the \(target.rawValue) store")
        let reason = "migrated from the \(source.rawValue) store by 'vaultctl migrate' (set VAULT_BACKEND=\(target.rawValue) to keep it after a restart)"
        let report = try store.migrate(to: destination, reason: reason) { line in
            logger.info("migrate: \(line)")
        }
        logger.info("migration done: \(report.copied) copied, \(report.alreadyPresent) already there, \(report.removed) removed, "
                    + "\(report.conflicts.count) conflict(s), \(report.collapsed.count) key(s) with duplicates collapsed, \(report.leftInPlace.count) unaddressable item(s) left in place")
        var body = MigrationBody(
            from: source.rawValue, to: target.rawValue, copied: report.copied, alreadyPresent: report.alreadyPresent,
            removed: report.removed, conflicts: report.conflicts.map { KeyBody(service: $0.service, account: $0.account) })
        if !report.collapsed.isEmpty { body.collapsed = report.collapsed.map { KeyBody(service: $0.service, account: $0.account) } }
        if !report.leftInPlace.isEmpty { body.leftInPlace = report.leftInPlace.map(UnaddressableBody.init) }
        return ResultBody(migration: body)
    }

    func doctor() throws -> ResultBody {
        let reason = store.reasonChosen
        let report = try store.perform { active in Doctor(catalog: catalog, active: active, activeReason: reason).run() }
        return ResultBody(doctor: report)
    }
}
