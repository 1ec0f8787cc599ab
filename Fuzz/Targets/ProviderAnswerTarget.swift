import Foundation
import VaultCore
import VaultTokens

/// A sign-in provider's answer to a refresh and a device-grant poll, as each provider reads it
/// (OAuth 2.0, Supabase, Firebase): the first byte picks the HTTP status, the rest is the body.
/// A refresh that is granted holds only values that pass the checks a stored session passes.
enum ProviderAnswerTarget: FuzzTarget {
    static let name = "provider-answer"
    static let maxLength = 4096
    static let statuses = [200, 200, 201, 204, 302, 400, 401, 403, 404, 429, 500, 503]

    struct Scripted: HTTPTransport {
        let status: Int
        let body: Data
        func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> HTTPClient.Result {
            .response(status: status, body: self.body)
        }
    }

    static let records: [SessionRecord] = {
        let json = Array(#"{"access_token":"a","refresh_token":"r","expires_in":3600}"#.utf8)
        let settings: [[String: String]] = [
            ["token_endpoint": "http://127.0.0.1:9/token", "client_id": "c"],
            ["provider": "supabase", "project_url": "http://127.0.0.1:9", "api_key": "k"],
            ["provider": "firebase", "api_key": "k"],
        ]
        return settings.compactMap { try? SessionRecord.importing(json, now: 1_800_000_000, settings: $0) }
    }()

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        guard let first = input.first else { return }
        let transport = Scripted(status: statuses[Int(first) % statuses.count], body: Data(input.dropFirst()))
        try FuzzFinding.check(records.count == 3, "the fixed sessions do not import")
        for record in records {
            guard let provider = try? ProviderRegistry.provider(for: record, transport: transport) else {
                throw FuzzFinding("no provider for a fixed \(record.provider) session")
            }
            if case .granted(let grant) = provider.refresh(record, refreshToken: "r") {
                do {
                    try ProviderValue.checkToken(grant.accessToken, field: "access_token")
                    if let refresh = grant.refreshToken { try ProviderValue.checkToken(refresh, field: "refresh_token") }
                    if let lifetime = grant.expiresIn { try ProviderValue.check(lifetime, field: "expires_in", within: ProviderValue.lifetimes) }
                } catch {
                    throw FuzzFinding("a granted refresh holds a value a session may not: \(error)")
                }
            }
        }
        _ = DeviceAuthorization.poll(client: TokenEndpointClient(http: transport), tokenEndpoint: "http://127.0.0.1:9/token",
                                     deviceCode: "d", clientID: "c", clientSecret: nil)
    }
}
