#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol
import VaultStores
import VaultTokens

/// The one place requests are decoded and answered. Every failure becomes an error response with a
/// stable code; nothing a client sends can crash the daemon.
public final class RequestDispatcher: Sendable {
    let service: StoreService
    let catalog: StoreCatalog
    let socketPath: String
    let logger: Logger
    let tokens: TokenService

    public init(service: StoreService, catalog: StoreCatalog, socketPath: String, logger: Logger) {
        self.service = service
        self.catalog = catalog
        self.socketPath = socketPath
        self.logger = logger
        tokens = TokenService(
            client: TokenEndpointClient(http: HTTPClient(timeout: catalog.configuration.httpTimeout)),
            load: { key in
                let item = try service.perform { try $0.get(key) }
                guard item.info.kind == .session else {
                    throw VaultError.invalidInput("\(key) is a plain secret, not a sign-in session; use 'vaultctl get'")
                }
                return try SessionRecord.decoding(item.secret, key: key)
            },
            save: { key, record in
                try service.perform { _ = try $0.set(key, secret: record.encoded(), changes: ItemChanges(kind: .session)) }
            },
            log: { logger.info($0) })
    }

    /// Answers one request line.
    public func handle(line: [UInt8]) -> Response {
        let request: Request
        do {
            request = try MessageCodec.decode(Request.self, from: line)
        } catch {
            // Decode the id alone, leniently, so even a request with bad fields gets its id back.
            let id = (try? MessageCodec.decode(RequestEnvelope.self, from: line))?.id
            return .failure(id, code: VaultErrorCode.badRequest.rawValue, message: "\(error)")
        }
        let id = request.id
        do {
            guard let operation = Operation(rawValue: request.op) else {
                let known = Operation.allCases.map(\.rawValue).joined(separator: ", ")
                throw VaultError.invalidInput("unknown op '\(request.op.replacingControlCharacters())'; known ops: \(known)")
            }
            return .success(id, try execute(operation, request))
        } catch let error as VaultError {
            return .failure(id, code: error.code.rawValue, message: error.description)
        } catch {
            logger.error("unexpected error: \(error)")
            return .failure(id, code: VaultErrorCode.internal.rawValue, message: "internal error; see vaultd's log")
        }
    }

    private func execute(_ operation: Operation, _ request: Request) throws -> ResultBody {
        switch operation {
        case .status:
            return ResultBody(status: status())
        case .get:
            let key = try itemKey(request)
            let item = try service.perform { try $0.get(key) }
            logger.debug("get \(key)")
            return ResultBody(item: ItemBody(item.info, secret: item.secret))
        case .add, .set:
            let key = try itemKey(request)
            guard let secret = try WireSecret.decode(text: request.secret, base64: request.secretBase64, field: "secret") else {
                throw VaultError.invalidInput("missing field 'secret' (or 'secret_b64')")
            }
            let changes = ItemChanges(label: request.label, comment: request.comment)
            let info = try service.perform { store in
                operation == .add
                    ? try store.add(key, secret: secret, changes: changes)
                    : try store.set(key, secret: secret, changes: changes)
            }
            logger.info("\(operation.rawValue) \(key)")
            return ResultBody(item: ItemBody(info, secret: nil))
        case .delete:
            let key = try itemKey(request)
            try service.perform { try $0.delete(key) }
            logger.info("delete \(key)")
            return ResultBody()
        case .list:
            if let service = request.service { try ItemKey.validate(service, field: "service") }
            let items = try service.perform { try $0.list(service: request.service) }
            return ResultBody(items: items.map(describe))
        case .lock:
            try service.perform { try $0.lock() }
            service.setLockReason("locked by 'vaultctl lock'")
            logger.info("locked on request")
            return ResultBody(status: status())
        case .unlock:
            let passphrase = try WireSecret.decode(text: request.passphrase, base64: nil, field: "passphrase")
            do {
                try service.perform { try $0.unlock(passphrase: passphrase) }
            } catch let error as VaultError {
                logger.warning("unlock failed: \(error)")
                throw error
            }
            service.setLockReason(nil)
            logger.info("unlocked")
            return ResultBody(status: status())
        case .changePassphrase:
            guard let current = try WireSecret.decode(text: request.passphrase, base64: nil, field: "passphrase"),
                let new = try WireSecret.decode(text: request.newPassphrase, base64: nil, field: "new_passphrase")
            else { throw VaultError.invalidInput("change_passphrase needs 'passphrase' and 'new_passphrase'") }
            try service.perform { store in
                guard let fileStore = store as? EncryptedFileStore else {
                    throw VaultError.invalidInput("the \(store.backendName) store has no passphrase of vault's to change")
                }
                try fileStore.changePassphrase(current: current, new: new)
            }
            logger.info("passphrase changed")
            return ResultBody()
        case .migrate:
            return ResultBody(migration: try migrate(request))
        case .token, .login, .signup, .resetPassword, .logout, .importSession, .deviceStart, .devicePoll:
            return try handleSession(operation, request)
        case .doctor:
            let reason = service.backendReason
            let report = try service.perform { store in Doctor(catalog: catalog, active: store, activeReason: reason).run() }
            return ResultBody(doctor: report)
        }
    }

    private func migrate(_ request: Request) throws -> MigrationBody {
        guard let target = request.to else { throw VaultError.invalidInput("migrate needs 'to': file or secret-service") }
        let source = service.current.store
        guard target != source.backendName else {
            throw VaultError.invalidInput("vaultd already uses the \(target) store; nothing to migrate")
        }
        let passphrase = try WireSecret.decode(text: request.passphrase, base64: nil, field: "passphrase")
        let destination = try catalog.openStore(named: target, passphrase: passphrase)
        logger.info("migrating every item from the \(source.backendName) store to the \(target) store")
        let report = try service.migrate(to: destination, reason: "migrated from the \(source.backendName) store by 'vaultctl migrate' (set VAULT_BACKEND=\(target) to keep it after a restart)") { line in
            logger.info("migrate: \(line)")
        }
        logger.info("migration done: \(report.copied) copied, \(report.alreadyPresent) already there, \(report.removed) removed, \(report.conflicts.count) conflict(s)")
        return MigrationBody(
            from: source.backendName, to: target, copied: report.copied, alreadyPresent: report.alreadyPresent,
            removed: report.removed, conflicts: report.conflicts.map { KeyBody(service: $0.service, account: $0.account) })
    }

    private func status() -> StatusBody {
        let backendReason = service.backendReason
        let (storeStatus, exists) = (try? service.perform { store in
            (store.status(), (store as? EncryptedFileStore)?.fileExists ?? true)
        }) ?? (StoreStatus(backend: "unknown", isLocked: true, location: "", itemCount: nil), false)
        return StatusBody(
            version: VaultVersion.string, protocolVersion: VaultVersion.protocolVersion, pid: getpid(),
            backend: storeStatus.backend, backendReason: backendReason, locked: storeStatus.isLocked,
            location: storeStatus.location, exists: exists, items: storeStatus.itemCount, socket: socketPath,
            lockReason: storeStatus.isLocked ? service.currentLockReason : nil,
            sessions: storeStatus.isLocked ? nil : (try? service.perform { try $0.list(service: nil) })?.filter { $0.kind == .session }.map(describe))
    }

    func itemKey(_ request: Request) throws -> ItemKey {
        guard let service = request.service else { throw VaultError.invalidInput("missing field 'service'") }
        guard let account = request.account else { throw VaultError.invalidInput("missing field 'account'") }
        return try ItemKey(service: service, account: account)
    }
}

extension ItemBody {
    init(_ info: ItemInfo, secret: SecretBytes?) {
        let wire = secret.map(WireSecret.encode)
        self.init(
            service: info.key.service, account: info.key.account, label: info.label, comment: info.comment,
            kind: info.kind.rawValue, created: Timestamp.rfc3339(milliseconds: info.created),
            modified: Timestamp.rfc3339(milliseconds: info.modified), secret: wire?.text, secretBase64: wire?.base64)
    }
}
