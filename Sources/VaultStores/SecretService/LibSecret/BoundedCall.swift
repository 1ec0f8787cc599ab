#if canImport(Glibc)
import Glibc
#endif
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

    /// This thread's request (`request`): whether one runs, and the timeout one of its calls met.
    /// One per thread, made at its first request and released when the thread exits.
    private final class Scope {
        var active = false
        var timedOut: VaultError?
    }

    private static let scopeKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Scope>.fromOpaque(pointer).release() }
        } == 0, "pthread_key_create failed")
        return key
    }()

    private static var threadScope: Scope {
        if let existing = pthread_getspecific(scopeKey) { return Unmanaged<Scope>.fromOpaque(existing).takeUnretainedValue() }
        let scope = Scope()
        pthread_setspecific(scopeKey, Unmanaged.passRetained(scope).toOpaque())
        return scope
    }

    /// Runs one request's store calls: once one of them met its timeout, the others fail at once
    /// with the same error, so a provider that stopped answering costs a request one timeout, not
    /// one per call (its search, then the audit record's key, then the record's chain head).
    /// Requests do not nest: an inner one is part of the outer one.
    static func request<R>(_ body: () throws -> R) rethrows -> R {
        let scope = threadScope
        if scope.active { return try body() }
        scope.active = true
        defer {
            scope.active = false
            scope.timedOut = nil
        }
        return try body()
    }

    private static var scope: Scope? {
        guard let existing = pthread_getspecific(scopeKey) else { return nil }
        let scope = Unmanaged<Scope>.fromOpaque(existing).takeUnretainedValue()
        return scope.active ? scope : nil
    }

    /// Calls that met their timeout, in all: a call that waited for another to finish (the
    /// store's calls take turns) and sees this move knows the provider stopped answering.
    private static let timeouts = Atomic<UInt64>(0)
    static var timeoutCount: UInt64 { timeouts.load(ordering: .acquiring) }

    /// Fails the rest of this thread's request with `error` too (see `request`).
    static func failRequest(_ error: VaultError) { scope?.timedOut = error }

    /// `body` receives the cancellable and an error out-parameter, as libsecret's sync calls do.
    static func run<R>(
        timeout: Double, _ what: String,
        _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> R
    ) throws -> R {
        if let timedOut = scope?.timedOut { throw timedOut }
        let token = Token()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { token.cancelUnlessFinished() }
        var error: UnsafeMutablePointer<GError>?
        let result = body(token.cancellable, &error)
        token.finished.withLock { $0 = true }
        if let error {
            let failure = SecretServiceError(taking: error)
            if failure.kind == .cancelled {
                let timedOut = VaultError.unavailable("the Secret Service did not answer \(what) within \(timeout.secondsText) s; vaultd keeps serving (set VAULT_SECRET_SERVICE_TIMEOUT to wait longer)")
                scope?.timedOut = timedOut
                timeouts.add(1, ordering: .releasing)
                throw timedOut
            }
            throw failure
        }
        return result
    }
}
