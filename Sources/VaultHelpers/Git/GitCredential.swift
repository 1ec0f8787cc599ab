import VaultCore

/// What git sent a helper (git-credential(1)): single-valued attributes, the confidential ones
/// (`password`, `oauth_refresh_token`, `credential`) kept as `SecretBytes`, and the `key[]`
/// lists (`capability[]`, `wwwauth[]`, `state[]`). Built only by `init(parsing:)`
/// (`GitCredential+Parsing.swift`).
package struct GitCredential {
    static let secretKeys: Set<String> = ["password", "oauth_refresh_token", "credential"]

    package var values: [String: String] = [:]
    package var secrets: [String: SecretBytes] = [:]
    package var lists: [String: [String]] = [:]

    var `protocol`: String? { values["protocol"] }
    var host: String? { values["host"] }
    var path: String? { values["path"] }
    var username: String? { values["username"] }
    var password: SecretBytes? { secrets["password"] }
    var refreshToken: SecretBytes? { secrets["oauth_refresh_token"] }

    /// `password_expiry_utc` as unix seconds; the parser already refused one that is not a number.
    var passwordExpiry: Int64? { values["password_expiry_utc"].flatMap { Int64($0) } }

    /// Whether git offered `capability[]=NAME` (git 2.46+).
    func offers(_ capability: String) -> Bool { lists["capability"]?.contains(capability) == true }
}
