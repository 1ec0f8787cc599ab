import Foundation
import Testing
import VaultClient
import VaultCore
import VaultTestSupport
import VaultSystem

/// supabase-swift's `AuthLocalStorage` (Sources/Auth/Storage/AuthLocalStorage.swift), declared
/// identically: `VaultAuthStorage` must conform with an empty extension.
protocol AuthLocalStorage: Sendable {
    func store(key: String, value: Data) throws
    func retrieve(key: String) throws -> Data?
    func remove(key: String) throws
}

extension VaultAuthStorage: AuthLocalStorage {}

/// supabase-swift's `Session` and `User`, the fields its JSONEncoder writes (camelCase).
struct SupabaseSwiftSession: Codable, Equatable {
    struct User: Codable, Equatable {
        var id: String
        var appMetadata: [String: String]
        var userMetadata: [String: String]
        var aud: String
        var email: String?
        var phone: String?
        var createdAt: Date
        var updatedAt: Date
    }

    var providerToken: String?
    var accessToken: String
    var tokenType: String
    var expiresIn: Double
    var expiresAt: Double
    var refreshToken: String
    var user: User

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func decoded(_ data: Data?) throws -> SupabaseSwiftSession {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(SupabaseSwiftSession.self, from: try #require(data))
    }
}

@Suite struct VaultAuthStorageTests {
    typealias Daemon = VaultClientTests.Daemon
    static let key = "supabase.auth.token"

    func storage(_ daemon: Daemon, timeout: Double = 30) -> any AuthLocalStorage {
        // The project is never contacted: the sessions here are valid for an hour.
        VaultAuthStorage(name: "com.example.notes", supabaseURL: "http://127.0.0.1:9", anonKey: "anon-key", socketPath: daemon.socket, autostart: false, timeout: timeout)
    }

    func session(accessToken: String = "at-" + UUID().uuidString) -> SupabaseSwiftSession {
        SupabaseSwiftSession(
            providerToken: "provider-secret", accessToken: accessToken, tokenType: "bearer", expiresIn: 3600,
            expiresAt: (Date().timeIntervalSince1970 + 3600).rounded(), refreshToken: "rt-" + UUID().uuidString,
            user: .init(id: "5b1c0d5e-1f7e-4c1e-9a55-3c2a3f0e9b11", appMetadata: ["provider": "email"], userMetadata: ["name": "Alice"], aud: "authenticated",
                        email: "alice@example.com", phone: nil, createdAt: Date(timeIntervalSince1970: 1_767_225_600), updatedAt: Date(timeIntervalSince1970: 1_767_312_000)))
    }

    @Test func aSupabaseSwiftSessionRoundTripsAndIsASignInSession() async throws {
        let daemon = try Daemon()
        let storage = storage(daemon)
        let original = session()
        // Called from a task (the cooperative pool), as supabase-swift may: the I/O runs on the storage's queue.
        try storage.store(key: Self.key, value: try SupabaseSwiftSession.encoder().encode(original))
        #expect(try SupabaseSwiftSession.decoded(try storage.retrieve(key: Self.key)) == original)

        let connection = VaultConnection(socketPath: daemon.socket, autostart: false)
        let items = try connection.list(service: "com.example.notes")
        #expect(items.map(\.account) == [Self.key, Self.key + VaultAuthStorage.companionSuffix])
        #expect(items[0].kind == .session && items[0].session?.provider == .supabase && items[0].session?.user == "alice@example.com")
        #expect(items[1].kind == .secret)
        // The tokens are vaultd's, in its record: the companion holds the rest.
        let record = String(decoding: try connection.get(service: "com.example.notes", account: Self.key).secret.withUnsafeBytes { Data($0) }, as: UTF8.self)
        #expect(record.contains(original.refreshToken) && record.contains("127.0.0.1:9"), "\(record)")
        let rest = String(decoding: try connection.get(service: "com.example.notes", account: Self.key + ".user").secret.withUnsafeBytes { Data($0) }, as: UTF8.self)
        #expect(!rest.contains(original.accessToken) && !rest.contains(original.refreshToken) && rest.contains("Alice"))

        // A newer session replaces the old one.
        let newer = session()
        try storage.store(key: Self.key, value: try SupabaseSwiftSession.encoder().encode(newer))
        #expect(try SupabaseSwiftSession.decoded(try storage.retrieve(key: Self.key)) == newer)

        try storage.remove(key: Self.key)
        #expect(try storage.retrieve(key: Self.key) == nil)
        #expect(try connection.list(service: "com.example.notes").isEmpty)
        try storage.remove(key: Self.key)  // nothing stored: not an error
    }

    /// A session signed in elsewhere (`vaultctl login supabase`) has no companion: retrieve makes
    /// the user from the record, so supabase-swift can still decode it.
    @Test func aSessionWithoutItsUserObjectGetsOneFromTheRecord() throws {
        let daemon = try Daemon()
        let connection = VaultConnection(socketPath: daemon.socket, autostart: false)
        let expiresAt = Int(Date().timeIntervalSince1970) + 3600
        let json = #"{"access_token":"at-login","refresh_token":"rt-login-123456","token_type":"bearer","expires_at":\#(expiresAt),"user":{"id":"user-alice","email":"alice@example.com"}}"#
        try connection.importSession(service: "com.example.notes", account: Self.key, json: SecretBytes(utf8: json),
                                     defaults: SessionDefaults(provider: .supabase, url: "http://127.0.0.1:9", apiKey: "anon-key"))
        let retrieved = try SupabaseSwiftSession.decoded(try storage(daemon).retrieve(key: Self.key))
        #expect(retrieved.accessToken == "at-login" && retrieved.refreshToken == "rt-login-123456" && retrieved.expiresAt == Double(expiresAt))
        #expect(retrieved.user.id == "user-alice" && retrieved.user.email == "alice@example.com" && retrieved.user.aud == "authenticated")
    }

    @Test func otherValuesArePlainSecrets() throws {
        let daemon = try Daemon()
        let storage = storage(daemon)
        #expect(try storage.retrieve(key: "supabase.auth.token-code-verifier") == nil)
        let verifier = Data("pkce-verifier-\u{0}\u{ff}".utf8)
        try storage.store(key: "supabase.auth.token-code-verifier", value: verifier)
        #expect(try storage.retrieve(key: "supabase.auth.token-code-verifier") == verifier)
        // JSON that is not a Session (no refresh token, no user) is a value like any other.
        let notASession = Data(#"{"accessToken":"x"}"#.utf8)
        try storage.store(key: "other", value: notASession)
        #expect(try storage.retrieve(key: "other") == notASession)
        let items = try VaultConnection(socketPath: daemon.socket, autostart: false).list(service: "com.example.notes")
        #expect(items.allSatisfy { $0.kind == .secret } && items.count == 2)
        // A session replaced by a plain value leaves no session (nor its companion) behind.
        try storage.store(key: Self.key, value: try SupabaseSwiftSession.encoder().encode(session()))
        try storage.store(key: Self.key, value: Data("plain".utf8))
        #expect(try storage.retrieve(key: Self.key) == Data("plain".utf8))
        #expect(try VaultConnection(socketPath: daemon.socket, autostart: false).list(service: "com.example.notes").count == 3)
    }

    @Test func badInputIsRefusedWithTypedErrorsAndNothingStored() throws {
        let daemon = try Daemon()
        let storage = storage(daemon)
        for key in ["", "line\nbreak", String(repeating: "k", count: 5000)] {
            #expect { try storage.store(key: key, value: Data("v".utf8)) } throws: { Self.isFailure($0, .badRequest) }
            #expect { try storage.retrieve(key: key) } throws: { Self.isFailure($0, .badRequest) }
        }
        // A Session whose token is not one (a space and a quote in it): refused, not echoed, not kept.
        let hostile = session(accessToken: "not a \"token\"")
        do {
            try storage.store(key: Self.key, value: try SupabaseSwiftSession.encoder().encode(hostile))
            Issue.record("a session with an unusable token was stored")
        } catch let error as VaultSessionError {
            guard case .failed(let failure) = error else { Issue.record("\(error)"); return }
            #expect(failure.code == .badRequest && !failure.message.contains("not a"), "\(failure.message)")
        }
        #expect(try storage.retrieve(key: Self.key) == nil)
        #expect(try VaultConnection(socketPath: daemon.socket, autostart: false).list(service: "com.example.notes").isEmpty)
    }

    @Test func lockedAndUnreachableVaultsAreTypedErrors() throws {
        let daemon = try Daemon()
        let storage = storage(daemon)
        try storage.store(key: "k", value: Data("v".utf8))
        try VaultConnection(socketPath: daemon.socket, autostart: false).lock()
        #expect { try storage.retrieve(key: "k") } throws: {
            if case .locked? = $0 as? VaultSessionError { return true }
            return false
        }
        let nowhere = VaultAuthStorage(name: "n", supabaseURL: "http://127.0.0.1:9", anonKey: "k", socketPath: daemon.root + "/run/none.sock", autostart: false)
        #expect { try nowhere.retrieve(key: "k") } throws: {
            if case .unavailable? = $0 as? VaultSessionError { return true }
            return false
        }
    }

    /// A vaultd that accepts and never answers: the caller hears `unavailable` after the
    /// timeout, not never.
    @Test func aSilentVaultdCostsABoundedWait() throws {
        let directory = TemporaryDirectory(prefix: "vault-silent")
        let path = directory.path + "/vault.sock"
        let listener = try UnixSocket.stream()
        defer { listener.close() }
        try UnixSocket.bind(listener, path: path)
        try UnixSocket.listen(listener, backlog: 4)
        let storage = VaultAuthStorage(name: "n", supabaseURL: "http://127.0.0.1:9", anonKey: "k", socketPath: path, autostart: false, timeout: 1)
        let started = Date()
        #expect { try storage.retrieve(key: "k") } throws: {
            if case .unavailable? = $0 as? VaultSessionError { return true }
            return false
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    static func isFailure(_ error: any Error, _ code: VaultErrorCode) -> Bool {
        if case .failed(let failure)? = error as? VaultSessionError { return failure.code == code }
        return false
    }
}
