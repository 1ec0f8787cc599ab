#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import VaultCore

/// supabase-swift's session storage, kept in vault: exactly the methods of its
/// `AuthLocalStorage` protocol, so a program conforms it in one line and passes it as `storage:`.
///
/// ```swift
/// extension VaultAuthStorage: AuthLocalStorage {}
/// let storage = VaultAuthStorage(name: "com.example.notes", supabaseURL: url, anonKey: key)
/// ```
///
/// Items: the value of `key` is the item service `name`, account `key` (supabase-swift's session
/// is under `supabase.auth.token`). A value that is a supabase-swift `Session` (its JSONEncoder
/// form) is stored as a sign-in session (`import_session` with provider supabase, `supabaseURL`
/// and `anonKey`), which `vaultctl list` and `status` show and vaultd refreshes; the rest of the
/// Session (its `user` object, `expiresIn`, provider tokens) is kept, encrypted like any secret,
/// in a companion item: service `name`, account `key` + `.user`. Any other value is a plain
/// secret. `retrieve` answers a session with vaultd's current tokens (refreshed first when they
/// expire within `minimumLifetime` seconds) in the Session's camelCase form, the rest as stored;
/// a session signed in with `vaultctl login supabase` has no companion, and gets a user made
/// of its id and email.
///
/// The methods are synchronous, as the protocol requires, and may be called from any context,
/// a Swift concurrency task included: the socket I/O runs on a private queue, and the caller
/// waits at most `timeout` seconds plus five (then `VaultSessionError.unavailable`). Errors are
/// `VaultSessionError`.
public final class VaultAuthStorage: @unchecked Sendable {
    /// The item service: the name the program chose.
    public let name: String
    public let supabaseURL: String
    public let anonKey: String
    public let minimumLifetime: Double
    /// Suffix of the companion item's account.
    public static let companionSuffix = ".user"

    // `connection` is used only on `queue`.
    private let connection: VaultConnection
    private let queue = DispatchQueue(label: "VaultAuthStorage")
    private let wait: Double

    /// `name`: the item service (a reverse-DNS name of the program, say). `supabaseURL` and
    /// `anonKey`: the project vaultd refreshes sessions against. `socketPath` and `autostart`
    /// as for `VaultClient`. `timeout`: how long vaultd may take to answer one request.
    public init(name: String, supabaseURL: String, anonKey: String, minimumLifetime: Double = 120,
                socketPath: String? = nil, autostart: Bool? = nil, timeout: Double = 30) {
        self.name = name
        self.supabaseURL = supabaseURL
        self.anonKey = anonKey
        self.minimumLifetime = minimumLifetime
        connection = VaultConnection(socketPath: socketPath, autostart: autostart, timeout: timeout)
        wait = timeout + 5
    }

    public func store(key: String, value: Data) throws {
        try call { vault in
            guard let session = SupabaseSession(value) else {
                try vault.set(service: self.name, account: key, secret: value.withUnsafeBytes { SecretBytes(copying: $0) }, kind: .secret)
                try self.deleteIfPresent(vault, account: key + Self.companionSuffix)
                return
            }
            let defaults = SessionDefaults(provider: .supabase, url: self.supabaseURL, apiKey: self.anonKey)
            try vault.importSession(service: self.name, account: key, json: value.withUnsafeBytes { SecretBytes(copying: $0) }, defaults: defaults)
            let rest = try SupabaseSession(fields: session.rest).encoded()
            try vault.set(service: self.name, account: key + Self.companionSuffix, secret: rest.withUnsafeBytes { SecretBytes(copying: $0) },
                          label: "\(self.name) supabase-swift session: user", kind: .secret)
        }
    }

    public func retrieve(key: String) throws -> Data? {
        try call { vault -> Data? in
            let item: VaultItem
            do {
                item = try vault.get(service: self.name, account: key)
            } catch let error as VaultClientError where error.code == .notFound {
                return nil
            }
            guard item.metadata.kind == .session else { return item.secret.withUnsafeBytes { Data($0) } }
            var record = try Self.record(item)
            let token = try vault.token(service: self.name, account: key, minTTL: self.minimumLifetime)
            if token.accessToken != record.accessToken { record = try Self.record(vault.get(service: self.name, account: key)) }
            var rest: [String: JSONValue]?
            do {
                let companion = try vault.get(service: self.name, account: key + Self.companionSuffix)
                if case .object(let fields)? = companion.secret.withUnsafeBytes({ try? JSONDecoder().decode(JSONValue.self, from: Data($0)) }) {
                    rest = fields
                }
            } catch let error as VaultClientError where error.code == .notFound {
                rest = nil
            }
            let session = SupabaseSession.current(record, rest: rest, created: item.metadata.created, modified: item.metadata.modified)
            do {
                return try session.encoded()
            } catch {
                throw VaultClientError(code: .internal, message: "the session for \(key) could not be encoded for supabase-swift")
            }
        }
    }

    /// Deletes the value and its companion; a key with nothing stored is not an error. A session
    /// is only forgotten here: supabase-swift's `signOut` ends it at the server first.
    public func remove(key: String) throws {
        try call { vault in
            try self.deleteIfPresent(vault, account: key)
            try self.deleteIfPresent(vault, account: key + Self.companionSuffix)
        }
    }

    private func deleteIfPresent(_ vault: VaultConnection, account: String) throws(VaultClientError) {
        do {
            try vault.delete(service: name, account: account)
        } catch where error.code == .notFound {
            return
        }
    }

    private static func record(_ item: VaultItem) throws(VaultClientError) -> StoredSession {
        let decoded = item.secret.withUnsafeBytes { try? JSONDecoder().decode(StoredSession.self, from: Data($0)) }
        guard let decoded else {
            throw VaultClientError(code: .internal, message: "the session stored for \(item.metadata.service) \(item.metadata.account) cannot be read; sign in again")
        }
        return decoded
    }

    /// Runs `body` on the private queue and waits for it at most `wait` seconds.
    private func call<R: Sendable>(_ body: @escaping @Sendable (VaultConnection) throws -> R) throws(VaultSessionError) -> R {
        let outcome = Outcome<R>()
        let done = DispatchSemaphore(value: 0)
        queue.async {
            outcome.result = Result { try body(self.connection) }
            done.signal()
        }
        guard done.wait(timeout: .now() + wait) == .success else {
            throw .unavailable("vaultd did not answer within \(Int(wait)) s; try again, and see 'vaultctl status'")
        }
        switch outcome.result {
        case .success(let value)?: return value
        case .failure(let error)?: throw VaultSessionError(VaultClientError(error))
        case nil: throw .unavailable("vaultd gave no answer")
        }
    }

    /// A call's result, written on the queue before the semaphore is signalled and read after.
    private final class Outcome<R>: @unchecked Sendable {
        var result: Result<R, any Error>?
    }
}
