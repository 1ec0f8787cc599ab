import VaultCore

/// What one method call to vaultd's Secret Service objects asks (Properties' Get, GetAll and Set
/// too): who, of which object, and the arguments, whose signature GDBus has checked against the
/// introspection data. A value: the objects take it in-process as they take it from the bus.
struct BusRequest: @unchecked Sendable {
    /// The caller's unique bus name (":1.42").
    let sender: String
    let path: String
    let interface: String
    let member: String
    let parameters: BusVariant
    /// The call's one view of the store (`StoreReadView`), for every read it makes.
    let reads = StoreReadView()

    init(sender: String, path: String, interface: String, member: String, parameters: BusVariant) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.parameters = parameters
    }

    /// A request made in-process, its arguments `arguments` (a tuple).
    init(sender: String, path: String, interface: String, member: String, arguments: BusValue) {
        self.init(sender: sender, path: path, interface: interface, member: member, parameters: BusVariant(retaining: arguments.make()))
    }

    /// The parameter at `index` (GDBus checked the tuple's type, so it is there).
    func argument(_ index: Int) -> BusVariant {
        parameters.child(index)!
    }
}

/// An object's answer to a `BusRequest`: the tuple of out-arguments (nil: none), and what runs
/// right after the reply is sent (a signal that must not reach the caller before the reply).
struct BusReply {
    var value: BusValue?
    var afterAnswer: (@Sendable () -> Void)?

    init(_ value: BusValue? = nil, afterAnswer: (@Sendable () -> Void)? = nil) {
        self.value = value
        self.afterAnswer = afterAnswer
    }
}
