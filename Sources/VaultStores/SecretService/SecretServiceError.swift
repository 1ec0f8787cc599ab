import CLibSecret
import VaultCore

/// A GError from libsecret or GDBus, copied out (domain, code, message) and freed.
struct SecretServiceError: Error, CustomStringConvertible {
    let domain: String
    let code: Int32
    let message: String

    /// Takes ownership of `error` and frees it.
    init(taking error: UnsafeMutablePointer<GError>) {
        domain = String(cString: g_quark_to_string(error.pointee.domain))
        code = error.pointee.code
        message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        g_error_free(error)
    }

    var description: String { message }

    var isCancelled: Bool { domain == "g-io-error-quark" && code == Int32(G_IO_ERROR_CANCELLED.rawValue) }

    /// The service reported the collection or item locked.
    var isLocked: Bool { message.contains("IsLocked") || message.lowercased().contains("is locked") }

    /// Nothing owns org.freedesktop.secrets, or there is no bus at all.
    var isServiceMissing: Bool {
        message.contains("ServiceUnknown") || message.contains("NameHasNoOwner") || message.contains("was not provided by any .service files")
            || message.contains("Cannot autolaunch") || message.contains("Could not connect")
    }
}
