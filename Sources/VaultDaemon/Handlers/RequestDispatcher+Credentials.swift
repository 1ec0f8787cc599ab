import VaultCore
import VaultProtocol

/// resolve_credential: a credential helper's `get` in one request (`ItemService.resolveCredential`),
/// or, for a host linked to a session, that session's token exactly as `token` gives it.
extension RequestDispatcher {
    func resolveCredential(_ request: CredentialRequest, _ asking: ItemRequest) throws -> ResultBody {
        let helper = try CredentialQuery.helper(named: request.helper)
        if let session = request.sessionService {
            var result = try token(TokenRequest(service: session, account: request.sessionAccount), asking)
            result.resolution = ResolutionBody(found: "token")
            return result
        }
        let query = try CredentialQuery(helper: helper, service: request.service, account: request.account, foreign: request.attributes)
        var result: ResultBody
        switch try items.resolveCredential(query, by: asking) {
        case .item(let item):
            result = ResultBody(item: ItemBody(item.info, secret: item.secret))
            result.resolution = ResolutionBody(found: "item")
        case .foreign(let item, let secret):
            result = ResultBody(item: ItemBody(item, of: helper, secret: secret))
            result.resolution = ResolutionBody(found: "foreign")
        case .ambiguous(let ownItems, let count):
            result = ResultBody()
            result.resolution = ResolutionBody(found: "ambiguous", among: ownItems ? "item" : "foreign", count: count)
        case .nothing:
            result = ResultBody()
            result.resolution = ResolutionBody(found: "none")
        }
        return result
    }
}
