import VaultCore

/// The collection's items (org.freedesktop.Secret.Item at the collection's path + `/i` + the hex
/// of service and account): each a vault item of kind `secret`, read and changed through the
/// policy core (`ItemService`) as the caller the bus names.
struct ItemObject: BusObject {
    enum Method: String, CaseIterable {
        case delete = "Delete"
        case getSecret = "GetSecret"
        case setSecret = "SetSecret"
    }

    static let interface = "org.freedesktop.Secret.Item"

    let items: ItemService
    let callers: CallerRegistry
    let sessions: SessionObject

    func call(_ method: Method, _ request: BusRequest) throws -> BusReply {
        let key = try self.key(at: request.path)
        let caller = request.sender
        do {
            switch method {
            case .delete:
                try items.delete(key, by: callers.asking(request), in: .plainSecrets)
                return BusReply(.tuple([.objectPath(SecretServicePath.none)]))
            case .getSecret:
                let session = try sessions.session(request.argument(0).string ?? "", of: caller)
                let item = try items.read(key, by: callers.asking(request), in: .plainSecrets)
                return BusReply(.tuple([try session.encode(item.secret, contentType: item.info.contentType)]))
            case .setSecret:
                let (secret, contentType) = try sessions.secret(in: request.argument(0), from: caller)
                _ = try items.update(key, by: callers.asking(request), in: .plainSecrets) { _ in (secret, ItemChanges(contentType: contentType)) }
                return BusReply()
            }
        } catch VaultError.notFound {
            throw BusError.noSuchObject(request.path)
        }
    }

    func properties(at path: String) throws -> [(String, BusValue)] {
        guard let key = SecretServicePath.key(ofItem: path) else { throw BusError.noSuchObject(path) }
        if try items.store.read({ $0.status().isLocked }) {
            // The item's metadata is encrypted with the vault: only that it is locked is known.
            return [("Locked", .boolean(true)), ("Attributes", .stringDictionary([:])), ("Label", .string("")),
                    ("Created", .uint64(0)), ("Modified", .uint64(0))]
        }
        guard !key.isReserved, let info = try items.info(key, in: .plainSecrets) else { throw BusError.noSuchObject(path) }
        return [
            ("Locked", .boolean(false)),
            ("Attributes", .stringDictionary(SecretServiceAttributes.exported(info))),
            ("Label", .string(info.label)),
            ("Created", .uint64(UInt64(max(0, info.created) / 1000))),
            ("Modified", .uint64(UInt64(max(0, info.modified) / 1000))),
        ]
    }

    func setProperty(_ name: String, to value: BusVariant, at path: String, for request: BusRequest) throws {
        let key = try self.key(at: path)
        do {
            switch name {
            case "Label":
                guard let label = value.string else { throw BusError.invalidArgs("Label is a string of at most \(ItemLimits.maxLabelBytes) bytes") }
                _ = try items.update(key, by: callers.asking(request), in: .plainSecrets) { item in (item.secret, ItemChanges(label: label)) }
            case "Attributes":
                try changeAttributes(of: key, to: try SecretServiceAttributes.parse(value), request: request)
            default:
                throw BusError.invalidArgs("\(name) cannot be set")
            }
        } catch VaultError.notFound {
            throw BusError.noSuchObject(path)
        }
    }

    /// The key of the item at `path`; vault's own records have none over D-Bus.
    private func key(at path: String) throws(BusError) -> ItemKey {
        guard let key = SecretServicePath.key(ofItem: path), !key.isReserved else { throw BusError.noSuchObject(path) }
        return key
    }

    /// New attributes for the item at `key`. When they name another key (`service` and
    /// `username`), the item moves there (`ItemService.move`: a read's check, its rules with it):
    /// a new path, announced as one item deleted and one created.
    private func changeAttributes(of key: ItemKey, to attributes: [String: String], request: BusRequest) throws {
        let (named, others) = SecretServiceAttributes.split(attributes)
        let target = named ?? (key.isAttributeOnly ? key : nil)
        guard let target else {
            throw BusError.invalidArgs("this item's service and username are its key in vault; to keep other attributes only, create a new item")
        }
        if let problem = ItemAttributes.problem(with: others, keyIsMadeUp: target.isAttributeOnly) { throw BusError.invalidArgs(problem) }
        let changes = { (item: Item) in
            ItemChanges(label: item.info.label, comment: item.info.comment, attributes: others, contentType: item.info.contentType)
        }
        if target == key {
            _ = try items.update(key, by: callers.asking(request), in: .plainSecrets) { item in (item.secret, changes(item)) }
        } else {
            _ = try items.move(key, to: target, by: callers.asking(request), in: .plainSecrets, changes)
        }
    }
}
