import CGDBusShims

/// One method call as GDBus delivered it: the request, and the invocation its reply goes to.
/// Answered exactly once, by `answer`, from any thread.
final class BusCall: @unchecked Sendable {
    // The invocation is consumed by the reply; `answered` guards against a second one.
    private let invocation: OpaquePointer
    private var answered = false
    let request: BusRequest

    /// Takes over `invocation` (GDBus hands its ownership to the handler).
    init(taking invocation: OpaquePointer) {
        self.invocation = invocation
        request = BusRequest(
            sender: g_dbus_method_invocation_get_sender(invocation).map { String(cString: $0) } ?? "",
            path: String(cString: g_dbus_method_invocation_get_object_path(invocation)),
            interface: String(cString: g_dbus_method_invocation_get_interface_name(invocation)),
            member: String(cString: g_dbus_method_invocation_get_method_name(invocation)),
            parameters: BusVariant(retaining: g_dbus_method_invocation_get_parameters(invocation)))
    }

    /// Replies with `result`: the tuple of out-arguments (nil: none), or the error.
    func answer(_ result: Result<BusValue?, BusError>) {
        precondition(!answered, "a D-Bus call answered twice")
        answered = true
        switch result {
        case .success(let value):
            g_dbus_method_invocation_return_value(invocation, value?.make())
        case .failure(let error):
            g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
        }
    }
}
