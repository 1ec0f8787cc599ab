import CLibSecret
import Testing
@testable import VaultStores

/// The classification of libsecret's and GDBus's GErrors: by domain, code and D-Bus error name,
/// never by message. `observed` holds the domain, code and message each real failure produced
/// against gnome-keyring on a private bus (the failures the end-to-end Secret Service tests cause,
/// and a few more); `related` holds codes that mean the same thing but were not seen.
@Suite struct SecretServiceErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let domain: GQuark
        let code: Int32
        let message: String
        let kind: SecretServiceError.Kind
        var testDescription: String { "\(String(cString: g_quark_to_string(domain))) \(code): \(kind)" }

        init<Code: RawRepresentable>(_ domain: GQuark, _ code: Code, _ message: String, _ kind: SecretServiceError.Kind) where Code.RawValue: BinaryInteger {
            self.domain = domain
            self.code = Int32(truncatingIfNeeded: code.rawValue)
            self.message = message
            self.kind = kind
        }
    }

    static func classify(_ domain: GQuark, _ code: Int32, _ message: String) -> SecretServiceError {
        SecretServiceError(taking: g_error_new_literal(domain, code, message))
    }

    static let observed: [Case] = [
        // A keyring stopped with SIGSTOP: BoundedCall's timer cancels the call.
        Case(g_io_error_quark(), G_IO_ERROR_CANCELLED, "Operation was cancelled", .cancelled),
        // No bus: DBUS_SESSION_BUS_ADDRESS unset, pointing at a missing socket, at a stale one;
        // and the bus killed under a live connection.
        Case(g_io_error_quark(), G_IO_ERROR_FAILED, "Cannot autolaunch D-Bus without X11 $DISPLAY", .busUnreachable),
        Case(g_io_error_quark(), G_IO_ERROR_NOT_FOUND, "Could not connect: No such file or directory", .busUnreachable),
        Case(g_io_error_quark(), G_IO_ERROR_CONNECTION_REFUSED, "Could not connect: Connection refused", .busUnreachable),
        Case(g_io_error_quark(), G_IO_ERROR_CLOSED, "The connection is closed", .busUnreachable),
        // A bus nothing on which owns org.freedesktop.secrets, and a killed keyring (its unique name).
        Case(g_dbus_error_quark(), G_DBUS_ERROR_SERVICE_UNKNOWN, "The name org.freedesktop.secrets was not provided by any .service files", .serviceMissing),
        Case(g_dbus_error_quark(), G_DBUS_ERROR_SERVICE_UNKNOWN, "The name :1.0 was not provided by any .service files", .serviceMissing),
        // A locked collection: reading a secret, changing, deleting and adding items.
        Case(secret_error_get_quark(), SECRET_ERROR_IS_LOCKED, "Cannot get secret of a locked object", .locked),
        Case(secret_error_get_quark(), SECRET_ERROR_IS_LOCKED, "Cannot set secret of a locked item", .locked),
        Case(secret_error_get_quark(), SECRET_ERROR_IS_LOCKED, "Cannot delete a locked item", .locked),
        Case(secret_error_get_quark(), SECRET_ERROR_IS_LOCKED, "Cannot create an item in a locked collection", .locked),
        // gnome-keyring's answer for an item deleted by another program after vault found it:
        // UnknownMethod, which also means what it says, so it is not taken for a missing object.
        Case(g_dbus_error_quark(), G_DBUS_ERROR_UNKNOWN_METHOD, "Object does not exist at path “/org/freedesktop/secrets/collection/login/1”", .other),
        // A malformed DBUS_SESSION_BUS_ADDRESS: INVALID_ARGUMENT is also what GDBus says of a reply of the wrong type.
        Case(g_io_error_quark(), G_IO_ERROR_INVALID_ARGUMENT, "Address element “garbage” does not contain a colon (:)", .other),
    ]

    static let related: [Case] = [
        Case(g_dbus_error_quark(), G_DBUS_ERROR_NAME_HAS_NO_OWNER, "Could not get owner of name 'org.freedesktop.secrets': no such name", .serviceMissing),
        Case(g_dbus_error_quark(), G_DBUS_ERROR_SPAWN_EXEC_FAILED, "Failed to execute program org.freedesktop.secrets", .serviceMissing),
        Case(g_dbus_error_quark(), G_DBUS_ERROR_NO_SERVER, "no server", .busUnreachable),
        Case(g_io_error_quark(), G_IO_ERROR_PERMISSION_DENIED, "Could not connect: Permission denied", .busUnreachable),
        Case(secret_error_get_quark(), SECRET_ERROR_NO_SUCH_OBJECT, "No such secret collection at path: /", .noSuchObject),
        Case(g_dbus_error_quark(), G_DBUS_ERROR_UNKNOWN_OBJECT, "No such object path '/org/freedesktop/secrets/collection/login/1'", .noSuchObject),
    ]

    @Test(arguments: observed + related)
    func eachFailureIsClassifiedByDomainAndCode(_ failure: Case) {
        let error = Self.classify(failure.domain, failure.code, failure.message)
        #expect(error.kind == failure.kind)
        #expect(error.code == failure.code)
        #expect(error.domain == String(cString: g_quark_to_string(failure.domain)))
        #expect(error.message == failure.message)
    }

    @Test func registeredCodesCarryTheirDBusErrorName() {
        #expect(Self.classify(secret_error_get_quark(), Int32(SECRET_ERROR_IS_LOCKED.rawValue), "locked").remoteName == "org.freedesktop.Secret.Error.IsLocked")
        #expect(Self.classify(g_dbus_error_quark(), Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue), "gone").remoteName == "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(Self.classify(g_io_error_quark(), Int32(G_IO_ERROR_CLOSED.rawValue), "closed").remoteName == nil)
    }

    /// A D-Bus error name GIO has no mapping for arrives as G_IO_ERROR_DBUS_ERROR, the name encoded
    /// by GDBus in front of the message; the name, not the message after it, decides.
    @Test func unmappedDBusErrorsAreClassifiedByTheirName() {
        let dbusError = Int32(G_IO_ERROR_DBUS_ERROR.rawValue)
        let cases: [(String, SecretServiceError.Kind)] = [
            ("org.freedesktop.Secret.Error.IsLocked", .locked),
            ("org.freedesktop.Secret.Error.NoSuchObject", .noSuchObject),
            ("org.freedesktop.DBus.Error.ServiceUnknown", .serviceMissing),
            ("org.freedesktop.DBus.Error.NoServer", .busUnreachable),
            ("org.example.Keyring.Error.IsLocked", .other),
        ]
        for (name, kind) in cases {
            let error = Self.classify(g_io_error_quark(), dbusError, "GDBus.Error:\(name): the collection is locked")
            #expect(error.remoteName == name)
            #expect(error.kind == kind, "\(name)")
        }
    }

    @Test func theMessageNeverDecides() {
        let misleading = "IsLocked: is locked; ServiceUnknown NameHasNoOwner Could not connect Cannot autolaunch was not provided by any .service files"
        #expect(Self.classify(g_io_error_quark(), Int32(G_IO_ERROR_INVALID_ARGUMENT.rawValue), misleading).kind == .other)
        #expect(Self.classify(g_dbus_error_quark(), Int32(G_DBUS_ERROR_ACCESS_DENIED.rawValue), misleading).kind == .other)
        // g_quark_from_string copies the name: GLib keeps a static string's pointer for good.
        #expect(Self.classify(g_quark_from_string("vault-test-error-quark"), 2, misleading).kind == .other)
        // The same codes as real failures, under another domain, are not those failures.
        #expect(Self.classify(g_quark_from_string("vault-test-error-quark"), Int32(SECRET_ERROR_IS_LOCKED.rawValue), "x").kind == .other)
    }
}
