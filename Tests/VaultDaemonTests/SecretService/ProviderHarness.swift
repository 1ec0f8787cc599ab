import Foundation
@testable import VaultDaemon
import VaultCore
import VaultStores
import VaultTestSupport
import VaultSystem

/// vaultd's Secret Service objects in-process, without a bus: a provider over an encrypted file
/// store (so that it can be locked), its callers described by `askBus` as a test chooses, and
/// its signals recorded. Requests go through `call`, as the bus would hand them over, caller
/// check included.
final class ProviderHarness: @unchecked Sendable {
    let directory = TemporaryDirectory(prefix: "vault-provider")
    let file: EncryptedFileStore
    let store: ActiveStore
    let items: ItemService
    let provider: SecretServiceProvider
    let signals = SignalRecorder()
    /// The uid the bus reports for each caller (vaultd's own unless set).
    let uids = AdaptiveLock<[String: UInt32]>([:])
    let passphrase = SecretBytes(utf8: "the vault's passphrase")

    static let me = ":1.10"
    static let other = ":1.11"

    init(promptTimeout: Double = 30) throws {
        file = EncryptedFileStore(path: directory.file("data/vault.db"), options: .init(kdfParameters: .minimum))
        try file.unlock(passphrase: passphrase)
        store = ActiveStore(store: file, reason: "a test")
        let logger = Logger(handler: RecordingLogHandler())
        let access = AccessControl(store: store, vaultFile: directory.file("data/vault.db"), approvalTimeout: 5, confirmAll: false, logger: logger)
        let feed = ItemChangeFeed()
        items = ItemService(store: store, access: access, changes: feed, logger: logger)
        let uids = self.uids
        provider = SecretServiceProvider(
            items: items, logger: logger, promptTimeout: promptTimeout, vaultFile: directory.file("data/vault.db"),
            status: SecretServiceProviderStatus(),
            askBus: { name in .success(CallerRegistry.Credentials(uid: uids.withLock { $0[name] } ?? getuid(), pid: nil)) },
            signals: signals)
    }

    /// `member` of `interface` on the object at `path`, called by `sender` with `arguments`.
    func call(_ interface: String, _ member: String, at path: String = SecretServicePath.service,
              _ arguments: [BusValue] = [], by sender: String = me) -> Result<BusReply, BusError> {
        provider.answer(BusRequest(sender: sender, path: path, interface: interface, member: member, arguments: .tuple(arguments)))
    }

    /// As `call`, the reply's value read back as the bus would deliver it; throws the BusError.
    func value(_ interface: String, _ member: String, at path: String = SecretServicePath.service,
               _ arguments: [BusValue] = [], by sender: String = me) throws -> BusVariant? {
        let reply = try call(interface, member, at: path, arguments, by: sender).get()
        return reply.value.map { BusVariant(retaining: $0.make()) }
    }

    /// A plain session of `sender`'s.
    func openPlainSession(by sender: String = me) throws -> String {
        let opened = try requireValue(value(SessionObject.interfaceOfService, "OpenSession", [.string("plain"), .variant(.string(""))], by: sender))
        return opened.child(1)?.string ?? ""
    }

    /// A plain Secret struct for `session`.
    static func secret(_ text: String, session: String, contentType: String = "text/plain") -> BusValue {
        .tuple([.objectPath(session), .bytes(.empty), .bytes(SecretBytes(utf8: text)), .string(contentType)])
    }

    /// Creates an item with `attributes` through the collection; its path.
    @discardableResult
    func createItem(_ attributes: [String: String], secret: String, label: String = "a label", by sender: String = me) throws -> String {
        let session = try openPlainSession(by: sender)
        let properties = BusValue.dictionary(valueType: "v", [
            ("org.freedesktop.Secret.Item.Label", .variant(.string(label))),
            ("org.freedesktop.Secret.Item.Attributes", .variant(.stringDictionary(attributes))),
        ])
        let created = try requireValue(value(CollectionObject.interface, "CreateItem", at: SecretServicePath.collection,
                                              [properties, Self.secret(secret, session: session), .boolean(true)], by: sender))
        return created.child(0)?.string ?? ""
    }

    /// `sender` left the bus.
    func leave(_ sender: String) { provider.vanished(sender) }
}

extension SessionObject {
    /// OpenSession is a method of the service.
    static let interfaceOfService = ServiceObject.interface
}

/// The signals the provider sent, in order.
final class SignalRecorder: BusSignals, @unchecked Sendable {
    struct Signal {
        let path: String
        let member: String
        let arguments: BusVariant
        let destination: String?
    }

    private let sent = AdaptiveLock<[Signal]>([])
    var all: [Signal] { sent.withLock { $0 } }

    func emit(from path: String, interface: String, _ member: String, _ arguments: BusValue, to destination: String?) {
        let signal = Signal(path: path, member: member, arguments: BusVariant(retaining: arguments.make()), destination: destination)
        sent.withLock { $0.append(signal) }
    }

    /// Waits up to `seconds` for a signal `member`.
    func wait(for member: String, seconds: Double = 10) -> Signal? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let found = all.first(where: { $0.member == member }) { return found }
            usleep(10_000)
        }
        return nil
    }
}

struct MissingValue: Error {}

/// The value, or a thrown error when there is none.
func requireValue<T>(_ value: T?) throws -> T {
    guard let value else { throw MissingValue() }
    return value
}
