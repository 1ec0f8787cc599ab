import CLibSecret

/// A GError from libsecret or GDBus, copied out and freed. `kind` comes from the GError's domain
/// and code and from the D-Bus error name the other side replied with, never from the message,
/// which is for people (and may be translated).
struct SecretServiceError: Error, CustomStringConvertible {
    enum Kind: Equatable, Sendable {
        /// The call's GCancellable fired: BoundedCall's timer, so the call ran past its timeout.
        case cancelled
        /// The collection or item is locked.
        case locked
        /// The item or collection the call named does not exist (any more).
        case noSuchObject
        /// The bus answered, but nothing owns org.freedesktop.secrets and the bus could not start it.
        case serviceMissing
        /// There is no session bus to reach, or the connection to it failed or closed.
        case busUnreachable
        case other
    }

    /// The GError domain's name, e.g. "g-dbus-error-quark", "secret-error".
    let domain: String
    let code: Int32
    /// The D-Bus error name when the failure is another process's error reply, e.g.
    /// "org.freedesktop.Secret.Error.IsLocked"; nil for failures that happened in this process.
    let remoteName: String?
    let message: String
    let kind: Kind

    /// Takes ownership of `error` and frees it.
    init(taking error: UnsafeMutablePointer<GError>) {
        code = error.pointee.code
        domain = String(cString: g_quark_to_string(error.pointee.domain))
        remoteName = g_dbus_error_get_remote_error(error).map { name in
            defer { g_free(name) }
            return String(cString: name)
        }
        message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        kind = Self.kind(domain: error.pointee.domain, code: code, remoteName: remoteName)
        g_error_free(error)
    }

    var description: String { message }

    /// GDBus maps the D-Bus names it knows (org.freedesktop.DBus.Error.*, and those libsecret
    /// registers: org.freedesktop.Secret.Error.*) to G_DBUS_ERROR and SECRET_ERROR codes; a name
    /// nothing registered arrives as G_IO_ERROR_DBUS_ERROR, so the name is checked as well.
    private static func kind(domain: GQuark, code: Int32, remoteName: String?) -> Kind {
        let table: [Int32: Kind]
        switch domain {
        case g_io_error_quark(): table = ioErrors
        case g_dbus_error_quark(): table = dbusErrors
        case secret_error_get_quark(): table = secretErrors
        default: table = [:]
        }
        if let kind = table[code] { return kind }
        return remoteName.flatMap { remoteNames[$0] } ?? .other
    }

    /// G_IO_ERROR: CANCELLED is our timer. The others are how GIO reports a bus it cannot reach:
    /// FAILED for "Cannot autolaunch D-Bus without X11 $DISPLAY" (no DBUS_SESSION_BUS_ADDRESS) and
    /// failed authentication, NOT_FOUND / CONNECTION_REFUSED / PERMISSION_DENIED for a socket that
    /// is missing, stale or not ours, CLOSED / BROKEN_PIPE / NOT_CONNECTED for a bus that went away.
    private static let ioErrors: [Int32: Kind] = codes([
        (G_IO_ERROR_CANCELLED, .cancelled),
        (G_IO_ERROR_FAILED, .busUnreachable),
        (G_IO_ERROR_NOT_FOUND, .busUnreachable),
        (G_IO_ERROR_CONNECTION_REFUSED, .busUnreachable),
        (G_IO_ERROR_PERMISSION_DENIED, .busUnreachable),
        (G_IO_ERROR_CLOSED, .busUnreachable),
        (G_IO_ERROR_BROKEN_PIPE, .busUnreachable),
        (G_IO_ERROR_NOT_CONNECTED, .busUnreachable),
    ])

    /// G_DBUS_ERROR: the bus's own replies. SERVICE_UNKNOWN is what a bus without the service
    /// answers (also for the unique name of a provider that was killed); SPAWN_* is a bus that
    /// tried to start the service and failed.
    private static let dbusErrors: [Int32: Kind] = codes([
        (G_DBUS_ERROR_SERVICE_UNKNOWN, .serviceMissing),
        (G_DBUS_ERROR_NAME_HAS_NO_OWNER, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_EXEC_FAILED, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_FORK_FAILED, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_CHILD_EXITED, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_CHILD_SIGNALED, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_FAILED, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_SETUP_FAILED, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_CONFIG_INVALID, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_SERVICE_INVALID, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_PERMISSIONS_INVALID, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_FILE_INVALID, .serviceMissing),
        (G_DBUS_ERROR_SPAWN_NO_MEMORY, .serviceMissing),
        (G_DBUS_ERROR_NO_SERVER, .busUnreachable),
        (G_DBUS_ERROR_DISCONNECTED, .busUnreachable),
        (G_DBUS_ERROR_UNKNOWN_OBJECT, .noSuchObject),
    ])

    /// SECRET_ERROR: the Secret Service's replies as libsecret maps them, and libsecret's own.
    private static let secretErrors: [Int32: Kind] = codes([
        (SECRET_ERROR_IS_LOCKED, .locked),
        (SECRET_ERROR_NO_SUCH_OBJECT, .noSuchObject),
    ])

    private static let remoteNames: [String: Kind] = [
        "org.freedesktop.Secret.Error.IsLocked": .locked,
        "org.freedesktop.Secret.Error.NoSuchObject": .noSuchObject,
        "org.freedesktop.DBus.Error.UnknownObject": .noSuchObject,
        "org.freedesktop.DBus.Error.ServiceUnknown": .serviceMissing,
        "org.freedesktop.DBus.Error.NameHasNoOwner": .serviceMissing,
        "org.freedesktop.DBus.Error.NoServer": .busUnreachable,
        "org.freedesktop.DBus.Error.Disconnected": .busUnreachable,
    ]

    /// C enum constants (imported as RawRepresentable structs) keyed by the GError code they are.
    private static func codes<Code: RawRepresentable>(_ pairs: [(Code, Kind)]) -> [Int32: Kind] where Code.RawValue: BinaryInteger {
        Dictionary(uniqueKeysWithValues: pairs.map { (Int32(truncatingIfNeeded: $0.0.rawValue), $0.1) })
    }
}
