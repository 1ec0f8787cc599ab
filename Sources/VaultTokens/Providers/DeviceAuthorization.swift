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
            guard let deviceCode = object["device_code"] as? String, let userCode = object["user_code"] as? String,
                  let uri = (object["verification_uri"] as? String) ?? (object["verification_url"] as? String) else {
                throw VaultError.unavailable("the device authorization endpoint's answer lacks device_code, user_code or verification_uri")
            }
            func number(_ value: Any?) -> Double? { (value as? Double) ?? (value as? String).flatMap(Double.init) }
            return DeviceAuthorization(
                deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
                verificationURIComplete: object["verification_uri_complete"] as? String,
                expiresIn: number(object["expires_in"]) ?? 600, interval: number(object["interval"]) ?? 5)
        case .error(let code, let description, _):
            throw VaultError.permissionDenied("the device authorization endpoint refused: \(code)\(description.isEmpty ? "" : ": \(description)")")
        case .failure(let outcome):
            throw VaultError.unavailable("could not start the device sign-in: \(outcome.summary)")
        }
    }

    public static func poll(client: TokenEndpointClient, tokenEndpoint: String, deviceCode: String, clientID: String?, clientSecret: String?) -> Poll {
        let form = [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode)]
        switch client.post(endpoint: tokenEndpoint, form: form, clientID: clientID, clientSecret: clientSecret) {
        case .success(let object):
            guard let grant = TokenGrant.parse(object) else { return .failed(.unavailable("the token endpoint's answer has no access_token")) }
            return .granted(grant)
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
