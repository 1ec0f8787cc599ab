import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VaultClient

/// (Its own library, so that programs on VaultClient that send no HTTP, vaultctl among them, do
/// not link FoundationNetworking and the libcurl it loads.)
///
/// Fresh access tokens from a vault sign-in session (Supabase, Firebase, OAuth 2.0), for any
/// Swift HTTP client: `authorized(_:)` adds `Authorization: Bearer <token>` to a `URLRequest`;
/// `send(_:status:using:)` sends it with the program's own client and, when the answer is a 401,
/// asks vaultd once for a refreshed token and sends it once more.
///
/// ```swift
/// let api = VaultTokenSource(service: "app")
/// let (data, response) = try await api.data(for: URLRequest(url: url))     // URLSession
/// let response = try await api.send(request, status: { $0.status.code }) { try await client.execute($0) }
/// ```
///
/// Errors about the session are `VaultSessionError`: `.signInRequired` (no session, or its
/// refresh token was rejected: `vaultctl login ...`), `.locked` (`vaultctl unlock`),
/// `.unavailable` (vaultd unreachable, or the provider could not be reached in time); the HTTP
/// client's own errors pass through unchanged. vaultd does the refreshing, once per session for
/// all the user's processes; the socket I/O runs on `VaultClient`'s private queue, never on the
/// cooperative pool.
public struct VaultTokenSource: Sendable {
    public let service: String
    public let account: String?
    /// A token expiring sooner than this (seconds) is refreshed before it is used.
    public let minimumLifetime: Double
    private let vault: VaultClient

    /// `account` nil: the service's only session.
    public init(service: String, account: String? = nil, vault: VaultClient = VaultClient(), minimumLifetime: Double = 60) {
        self.service = service
        self.account = account
        self.vault = vault
        self.minimumLifetime = minimumLifetime
    }

    /// A token valid for at least `minimumLifetime` more seconds (when its lifetime is known).
    public func token() async throws(VaultSessionError) -> AccessToken {
        try await token(minTTL: minimumLifetime)
    }

    /// A token to use instead of `rejected`, which a server refused: one newer than it, refreshed
    /// by vaultd now unless another caller's refresh already stored one. A token of unknown
    /// lifetime cannot be refreshed this way: it comes back unchanged.
    public func token(replacing rejected: AccessToken) async throws(VaultSessionError) -> AccessToken {
        // Asking for more life than the rejected token has left makes vaultd refresh it.
        let left = rejected.expiresAt.map { $0.timeIntervalSinceNow } ?? 0
        return try await token(minTTL: max(left, 0) + 1)
    }

    /// `request` with `Authorization: Bearer <fresh token>`.
    public func authorized(_ request: URLRequest) async throws(VaultSessionError) -> URLRequest {
        Self.authorizing(request, with: try await token())
    }

    /// Sends `request` with a fresh token through `send` (any HTTP client); `status` reads the
    /// HTTP status of its answer. On a 401, asks vaultd once for a refreshed token and sends the
    /// request once more with it; the second answer is returned whatever it is. When vaultd has
    /// no newer token (one of unknown lifetime, or one refreshed moments ago) the first 401 is
    /// returned without sending again.
    public func send<Response>(_ request: URLRequest, status: (Response) -> Int?,
                               using send: (URLRequest) async throws -> Response) async throws -> Response {
        let first = try await token()
        let response = try await send(Self.authorizing(request, with: first))
        guard status(response) == 401 else { return response }
        let second = try await token(replacing: first)
        guard second.accessToken != first.accessToken else { return response }
        return try await send(Self.authorizing(request, with: second))
    }

    /// `send(_:status:using:)` with `session`.
    public func data(for request: URLRequest, session: URLSession = .shared) async throws -> (Data, URLResponse) {
        try await send(request, status: { ($0.1 as? HTTPURLResponse)?.statusCode }) { try await session.data(for: $0) }
    }

    private func token(minTTL: Double) async throws(VaultSessionError) -> AccessToken {
        do {
            return try await vault.token(service: service, account: account, minTTL: minTTL)
        } catch {
            throw VaultSessionError(error as? VaultClientError ?? VaultClientError(code: .internal, message: "\(error)"))
        }
    }

    private static func authorizing(_ request: URLRequest, with token: AccessToken) -> URLRequest {
        var request = request
        request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
        return request
    }
}
