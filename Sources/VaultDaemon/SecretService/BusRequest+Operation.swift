import VaultProtocol

extension BusRequest {
    /// The vault operation a Secret Service call performs, for its `OperationTraits` (auto-lock
    /// counts from calls that read or change items, as from socket requests that do).
    var operation: Operation {
        switch (interface, member) {
        case ("org.freedesktop.Secret.Item", "GetSecret"), ("org.freedesktop.Secret.Service", "GetSecrets"): .get
        case ("org.freedesktop.Secret.Item", "SetSecret"), ("org.freedesktop.Secret.Collection", "CreateItem"),
             ("org.freedesktop.DBus.Properties", "Set"): .set
        case ("org.freedesktop.Secret.Item", "Delete"): .delete
        case (_, "SearchItems"), ("org.freedesktop.DBus.Properties", _): .list
        case ("org.freedesktop.Secret.Service", "Unlock"): .unlock
        case ("org.freedesktop.Secret.Service", "Lock"): .lock
        default: .status
        }
    }
}
