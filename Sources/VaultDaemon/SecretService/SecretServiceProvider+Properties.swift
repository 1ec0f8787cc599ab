import VaultCore

/// org.freedesktop.DBus.Properties on every object: GDBus has checked that the property
/// exists on the object's interface, is readable or writable, and that a Set's value has its type.
extension SecretServiceProvider {
    func properties(_ call: BusCall) throws -> BusValue? {
        let interface = call.argument(0).string ?? ""
        switch call.member {
        case "Get":
            let name = call.argument(1).string ?? ""
            guard let value = try propertyValues(interface, path: call.path).first(where: { $0.0 == name })?.1 else {
                throw BusError.invalidArgs("no property \(name) on \(interface)")
            }
            return .tuple([.variant(value)])
        case "GetAll":
            return .tuple([.dictionary(valueType: "v", try propertyValues(interface, path: call.path).map { ($0.0, .variant($0.1)) })])
        case "Set":
            guard let value = call.argument(2).unboxed else { throw BusError.invalidArgs("Set takes a variant") }
            try setProperty(interface, call.argument(1).string ?? "", value, path: call.path, sender: call.sender)
            return nil
        default:
            throw BusError.notSupported("no method \(call.member)")
        }
    }

    private func isLocked() throws -> Bool { try store.read { $0.status().isLocked } }

    /// Every property of `interface` at `path`, in introspection order.
    private func propertyValues(_ interface: String, path: String) throws -> [(String, BusValue)] {
        switch interface {
        case "org.freedesktop.Secret.Service":
            return [("Collections", .objectPaths([SecretServicePath.collection]))]
        case "org.freedesktop.Secret.Collection":
            guard SecretServicePath.isCollection(path) else { throw BusError.noSuchObject(path) }
            let locked = try isLocked()
            let items = locked ? [] : try visibleInfos()
            return [
                ("Items", .objectPaths(items.map { SecretServicePath.item($0.key) })),
                ("Label", .string("Login")),
                ("Locked", .boolean(locked)),
                ("Created", .uint64(UInt64(max(0, items.map(\.created).min() ?? 0) / 1000))),
                ("Modified", .uint64(UInt64(max(0, items.map(\.modified).max() ?? 0) / 1000))),
            ]
        case "org.freedesktop.Secret.Item":
            guard let key = SecretServicePath.key(ofItem: path) else { throw BusError.noSuchObject(path) }
            if try isLocked() {
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
        case "vault.Provider":
            guard path == SecretServicePath.service else { throw BusError.noSuchObject(path) }
            return [("VaultFile", .string(vaultFile))]
        default:
            return []
        }
    }

    private func visibleInfos() throws -> [ItemInfo] {
        try items.search([:], in: .plainSecrets)
    }

    private func setProperty(_ interface: String, _ name: String, _ value: BusVariant, path: String, sender: String) throws {
        guard interface == "org.freedesktop.Secret.Item", let key = SecretServicePath.key(ofItem: path), !key.isReserved else {
            throw BusError.notSupported("vaultd's collection is the whole vault: its \(name) cannot be changed")
        }
        do {
            switch name {
            case "Label":
                guard let label = value.string else { throw BusError.invalidArgs("Label is a string of at most \(ItemLimits.maxLabelBytes) bytes") }
                _ = try items.update(key, by: identity(of: sender), in: .plainSecrets) { item in (item.secret, ItemChanges(label: label)) }
            case "Attributes":
                try changeAttributes(of: key, to: try SecretServiceAttributes.parse(value), sender: sender)
            default:
                throw BusError.invalidArgs("\(name) cannot be set")
            }
        } catch VaultError.notFound {
            throw BusError.noSuchObject(path)
        }
    }

    /// New attributes for the item at `key`. When they name another key (`service` and
    /// `username`), the item moves there (`ItemService.move`: a read's check, its rules with it):
    /// a new path, announced as one item deleted and one created.
    private func changeAttributes(of key: ItemKey, to attributes: [String: String], sender: String) throws {
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
            _ = try items.update(key, by: identity(of: sender), in: .plainSecrets) { item in (item.secret, changes(item)) }
        } else {
            _ = try items.move(key, to: target, by: identity(of: sender), in: .plainSecrets, changes)
        }
    }
}
