import VaultCore

/// One kind of object vaultd exports on the bus, implementing one D-Bus interface: its methods
/// (a closed set, so a member the type does not name is refused before any handler runs) and
/// its properties. Each kind is one type (the service, the collection, its items, sessions,
/// prompts), called by `SecretServiceProvider` once the caller has been checked.
protocol BusObject: Sendable {
    /// The methods of `interface`, by their D-Bus member names.
    associatedtype Method: RawRepresentable, CaseIterable where Method.RawValue == String

    /// The D-Bus interface the object implements.
    static var interface: String { get }

    /// Answers `method` called on the object at `request.path`.
    func call(_ method: Method, _ request: BusRequest) throws -> BusReply

    /// Every property of the object at `path`, in introspection order.
    func properties(at path: String) throws -> [(String, BusValue)]

    /// Sets the property `name` of the object at `path` to `value` (GDBus checked that it is
    /// writable and of its type).
    func setProperty(_ name: String, to value: BusVariant, at path: String, for request: BusRequest) throws
}

extension BusObject {
    func properties(at path: String) throws -> [(String, BusValue)] { [] }

    func setProperty(_ name: String, to value: BusVariant, at path: String, for request: BusRequest) throws {
        throw BusError.notSupported("\(name) of \(Self.interface) cannot be set")
    }

    /// Answers `request` when it names one of the object's methods.
    func answer(_ request: BusRequest) throws -> BusReply {
        guard let method = Method(rawValue: request.member) else { throw BusError.notSupported("no method \(request.member) on \(Self.interface)") }
        return try call(method, request)
    }
}
