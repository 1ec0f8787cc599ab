import CLibSecret
import Dispatch
import Synchronization
import VaultCore
import VaultSystem

/// Runs one blocking libsecret call with a GCancellable that a timer cancels after `timeout`
/// seconds, so a hung provider or an unlock prompt nobody can answer cannot hang vaultd.
enum BoundedCall {
    /// Owns the GCancellable until both the call and the timer are done with it.
    private final class Token: @unchecked Sendable {
        let cancellable: UnsafeMutablePointer<GCancellable>
        let finished = AdaptiveLock(false)

        init() { cancellable = g_cancellable_new() }

        func cancelUnlessFinished() {
            finished.withLock { done in
                if !done { g_cancellable_cancel(cancellable) }
            }
        }

        deinit { g_object_unref(cancellable) }
    }

    /// `body` receives the cancellable and an error out-parameter, as libsecret's sync calls do.
    static func run<R>(
        timeout: Double, _ what: String,
        _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R
    ) throws -> R {
        let token = Token()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { token.cancelUnlessFinished() }
        var error: UnsafeMutablePointer<GError>?
        let result = body(token.cancellable, &error)
        token.finished.withLock { $0 = true }
        if let error {
            let failure = SecretServiceError(taking: error)
            if failure.kind == .cancelled {
                throw VaultError.unavailable("the Secret Service did not answer \(what) within \(timeout.secondsText) s; vaultd keeps serving (set VAULT_SECRET_SERVICE_TIMEOUT to wait longer)")
            }
            throw failure
        }
        return result
    }
}
