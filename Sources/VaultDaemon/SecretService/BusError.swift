import VaultCore

/// A D-Bus error reply: one of the Secret Service's or D-Bus's standard names (clients classify
/// by name) and a message saying what happened and what to do (never a secret).
package struct BusError: Error, Equatable {
    let name: String
    let message: String

    init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    static func isLocked(_ message: String = "the vault is locked: run 'vaultctl unlock', or call Unlock and complete its prompt") -> BusError {
        BusError(name: "org.freedesktop.Secret.Error.IsLocked", message: message)
    }
    static func noSession(_ message: String) -> BusError { BusError(name: "org.freedesktop.Secret.Error.NoSession", message: message) }
    static func noSuchObject(_ path: String) -> BusError {
        BusError(name: "org.freedesktop.Secret.Error.NoSuchObject", message: "no such object: \(path)")
    }
    static func invalidArgs(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message) }
    static func notSupported(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.NotSupported", message: message) }
    static func accessDenied(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: message) }
    static func failed(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.Failed", message: message) }
    static func limitsExceeded(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message) }

    /// The store's error as a D-Bus error, chosen by its code.
    init(_ error: any Error) {
        guard let error = error as? VaultError else {
            self = .failed("vaultd could not do that: \(error)")
            return
        }
        switch error.code {
        case .locked, .passphraseRequired, .newPassphraseRequired, .wrongPassphrase: self = .isLocked("\(error)")
        case .badRequest, .tooLarge: self = .invalidArgs("\(error)")
        case .denied, .permissionDenied: self = .accessDenied("\(error)")
        case .notFound: self = BusError(name: "org.freedesktop.Secret.Error.NoSuchObject", message: "\(error)")
        default: self = .failed("\(error)")
        }
    }
}
