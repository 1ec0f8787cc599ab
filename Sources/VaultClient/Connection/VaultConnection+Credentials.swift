import VaultCore
internal import VaultProtocol

/// A credential helper's `get` in one request (`resolve_credential`, docs/protocol.md).
extension VaultConnection {
    /// The credential vaultd gives for `lookup`. Fails as `get`, `foreign_get` or `token` would
    /// for the item or session it read (`.denied`, `.locked`, `.signInRequired`, ...), and with
    /// `.badRequest` saying to restart vaultd when it is too old to know the request.
    public func resolveCredential(_ lookup: CredentialLookup) throws(VaultClientError) -> ResolvedCredential {
        let request = CredentialRequest(
            helper: lookup.helper.rawValue, service: lookup.service, account: lookup.account, attributes: lookup.foreignAttributes,
            sessionService: lookup.sessionService, sessionAccount: lookup.sessionAccount)
        let result: ResultBody
        do throws(VaultClientError) {
            result = try perform(.resolveCredential(request))
        } catch where error.code == .badRequest && error.message.hasPrefix("unknown op '\(Operation.resolveCredential.rawValue)'") {
            // A vaultd from before this operation tells it only in its message.
            throw VaultClientError(
                code: .badRequest,
                message: "vaultd on \(socketPath) is older than this program and cannot answer it: restart vaultd ('systemctl --user restart vaultd', or stop it and the next vaultctl starts the new one)")
        }
        guard let resolution = result.resolution else { throw .malformedAnswer("the answer does not say what was found") }
        switch resolution.found {
        case "item":
            guard let body = result.item, let secret = body.secret else { throw .malformedAnswer("the item has no readable secret") }
            return .item(VaultItem(metadata: try ItemMetadata(wire: body), secret: secret))
        case "foreign":
            guard let body = result.item, let secret = body.secret else { throw .malformedAnswer("the other helper's item has no readable secret") }
            return .foreign(try ForeignItem(wire: body), secret: secret)
        case "token":
            guard let token = result.token else { throw .malformedAnswer("the answer has no token") }
            return .token(try AccessToken(wire: token))
        case "ambiguous":
            guard let count = resolution.count, count > 1, let among = resolution.among, among == "item" || among == "foreign" else {
                throw .malformedAnswer("an ambiguous answer without its count")
            }
            return .ambiguous(amongOwnItems: among == "item", count: count)
        case "none":
            return .nothing
        default:
            throw .malformedAnswer("vaultd found '\(String(resolution.found.prefix(40)).replacingControlCharacters())', which this client does not know")
        }
    }
}
