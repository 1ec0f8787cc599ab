import Foundation
import VaultCore

/// The OAuth 2.0 device authorization grant (RFC 8628): for signing in where the browser is on
/// another device. `start` asks for codes; `poll` asks the token endpoint whether the user has
/// approved them yet.
public struct DeviceAuthorization: Sendable, Equatable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String?
    public var expiresIn: Double
    public var interval: Double

    public enum Poll: Sendable {
        case granted(TokenGrant)
        case pending
        /// The server asked us to poll more slowly: add 5 seconds to the interval.
        case slowDown
        case failed(VaultError)
    }

    public static func start(client: TokenEndpointClient, endpoint: String, clientID: String?, clientSecret: String?, scope: String?) throws -> DeviceAuthorization {
        var form: [(String, String)] = []
        if let scope { form.append(("scope", scope)) }
        switch client.post(endpoint: endpoint, form: form, clientID: clientID, clientSecret: clientSecret) {
        case .success(let object):
            do {
                return try parse(object)
            } catch {
                throw VaultError.unavailable("the device authorization endpoint's answer is not usable: \(error)")
            }
        case .error(let code, let description, _):
            throw VaultError.permissionDenied("the device authorization endpoint refused: \(code)\(description.isEmpty ? "" : ": \(description)")")
        case .failure(let outcome):
            throw VaultError.unavailable("could not start the device sign-in: \(outcome.summary)")
        }
    }

    /// The codes of an RFC 8628 §3.2 answer, each value checked: a device code and user code
    /// without control characters, http(s) verification URIs, `expires_in` (default 600) and
    /// `interval` (default 5) within `ProviderValue.deviceLifetimes` and `deviceIntervals`.
    static func parse(_ object: [String: Any]) throws(ProviderValue.Problem) -> DeviceAuthorization {
        guard let deviceCode = try ProviderValue.text(object["device_code"], field: "device_code", limit: ProviderValue.maximumLongTextLength),
              !deviceCode.isEmpty else { throw ProviderValue.Problem(field: "device_code", problem: "is missing") }
        guard let userCode = try ProviderValue.text(object["user_code"], field: "user_code", limit: 128), !userCode.isEmpty else {
            throw ProviderValue.Problem(field: "user_code", problem: "is missing")
        }
        let uriField = object["verification_uri"] == nil && object["verification_url"] != nil ? "verification_url" : "verification_uri"
        guard let uri = try uriText(object[uriField], field: uriField) else { throw ProviderValue.Problem(field: "verification_uri", problem: "is missing") }
        return DeviceAuthorization(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
            verificationURIComplete: try uriText(object["verification_uri_complete"], field: "verification_uri_complete"),
            expiresIn: try ProviderValue.seconds(object["expires_in"], field: "expires_in", within: ProviderValue.deviceLifetimes) ?? 600,
            interval: try ProviderValue.seconds(object["interval"], field: "interval", within: ProviderValue.deviceIntervals) ?? 5)
    }

    /// A verification URI: checked text that is an http(s) URL.
    private static func uriText(_ value: Any?, field: String) throws(ProviderValue.Problem) -> String? {
        guard let text = try ProviderValue.text(value, field: field, limit: 2048) else { return nil }
        guard let url = URL(string: text), ["https", "http"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ProviderValue.Problem(field: field, problem: "is not an http(s) URL")
        }
        return text
    }

    public static func poll(client: TokenEndpointClient, tokenEndpoint: String, deviceCode: String, clientID: String?, clientSecret: String?) -> Poll {
        let form = [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode)]
        switch client.post(endpoint: tokenEndpoint, form: form, clientID: clientID, clientSecret: clientSecret) {
        case .success(let object):
            switch TokenGrant.outcome(object, from: "the token endpoint") {
            case .granted(let grant): return .granted(grant)
            case let other: return .failed(.unavailable(other.summary))
            }
        case .error(let code, _, _):
            switch code {
            case "authorization_pending": return .pending
            case "slow_down": return .slowDown
            case "access_denied": return .failed(.permissionDenied("the sign-in was denied on the other device"))
            case "expired_token": return .failed(.signInRequired("the code expired before it was approved: run the login again"))
            default: return .failed(.permissionDenied("the token endpoint refused the device sign-in (\(code))"))
            }
        case .failure(let outcome):
            // A network hiccup while waiting is not fatal: keep polling.
            if case .temporary = outcome { return .pending }
            return .failed(.unavailable(outcome.summary))
        }
    }
}
