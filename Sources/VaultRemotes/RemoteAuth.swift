import VaultCore

/// How vaultd logs in to a remote engine, and what it keeps to log in again. The secret part
/// (a token, an AppRole secret id, a password) comes from stdin or a prompt, never an argument,
/// and is stored with the remote in the encrypted store; a JWT is read from its file at each
/// login, so a CI job's rotated token is picked up.
public struct RemoteAuth: Codable, Sendable, Equatable {
    public enum Method: String, Codable, Sendable, CaseIterable {
        /// A token given once; renewed while the engine allows, then `remote login` for a new one.
        case token
        /// `auth/approle/login` with `roleID` and a secret id.
        case approle
        /// `auth/userpass/login/USER` with a password.
        case userpass
        /// `auth/jwt/login` with `role` and the JWT in `jwtFile`.
        case jwt
    }

    public var method: Method
    public var roleID: String?
    public var username: String?
    public var role: String?
    public var jwtFile: String?
    /// The mount of the auth method when it is not the default (`approle`, `userpass`, `jwt`).
    public var mount: String?

    enum CodingKeys: String, CodingKey {
        case method
        case roleID = "role_id"
        case username, role
        case jwtFile = "jwt_file"
        case mount
    }

    public init(method: Method, roleID: String? = nil, username: String? = nil, role: String? = nil, jwtFile: String? = nil, mount: String? = nil) {
        self.method = method
        self.roleID = roleID
        self.username = username
        self.role = role
        self.jwtFile = jwtFile
        self.mount = mount
    }

    /// Whether logging in needs a secret from the user (a token, a secret id, a password).
    public var needsSecret: Bool { method != .jwt }

    /// Whether vaultd can log in again by itself when the engine's token cannot be renewed.
    public var logsInAgain: Bool { method != .token }

    /// Checks that the options of `method` are there and only those; throws naming what is wrong.
    public func validate() throws(VaultError) {
        func require(_ value: String?, _ option: String) throws(VaultError) {
            guard let value, !value.isEmpty else { throw VaultError.invalidInput("--auth \(method.rawValue) needs \(option)") }
            if let problem = ItemKey.problem(with: value, field: option) { throw VaultError.invalidInput(problem) }
        }
        func forbid(_ value: String?, _ option: String) throws(VaultError) {
            if value != nil { throw VaultError.invalidInput("\(option) does not go with --auth \(method.rawValue)") }
        }
        switch method {
        case .token:
            try forbid(roleID, "--role-id"); try forbid(username, "--username"); try forbid(role, "--role"); try forbid(jwtFile, "--jwt-file")
        case .approle:
            try require(roleID, "--role-id"); try forbid(username, "--username"); try forbid(role, "--role"); try forbid(jwtFile, "--jwt-file")
        case .userpass:
            try require(username, "--username"); try forbid(roleID, "--role-id"); try forbid(role, "--role"); try forbid(jwtFile, "--jwt-file")
            if username!.contains("/") { throw VaultError.invalidInput("--username must not contain '/'") }
        case .jwt:
            try require(role, "--role"); try require(jwtFile, "--jwt-file"); try forbid(roleID, "--role-id"); try forbid(username, "--username")
            guard jwtFile!.hasPrefix("/") else { throw VaultError.invalidInput("--jwt-file must be an absolute path") }
        }
        if let mount, KVPath.problem(with: mount) != nil {
            throw VaultError.invalidInput("auth mount '\(mount.replacingControlCharacters())' is not a path such as 'approle'")
        }
    }

    /// For status and listings: the method and who, never a secret.
    public var summary: String {
        switch method {
        case .token: "token"
        case .approle: "approle (role id \(roleID ?? "?"))"
        case .userpass: "userpass (\(username ?? "?"))"
        case .jwt: "jwt (role \(role ?? "?"), \(jwtFile ?? "?"))"
        }
    }
}
