#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// Resolving `vault://` references over this one connection.
extension VaultConnection {
    /// The fields of a session a reference may select: never its refresh token, which only vaultd
    /// needs; a program that holds it could outlive every revocation.
    public static let sessionFields = ["access_token", "token_type", "expires_at"]

    /// What `reference` names: the item's secret (or the field of its JSON object), or the
    /// session's access token, refreshed first by vaultd when it expires within `minTTL` seconds
    /// (or its field). Errors name the reference: `not_found` when it names nothing,
    /// `bad_request` when it names several items or a field the item lacks.
    public func resolve(_ reference: SecretReference, minTTL: Double = 60) throws(VaultClientError) -> ResolvedReference {
        if let remote = reference.remote {
            let secret = try readRemote(remote: remote.remote, path: remote.path, field: reference.field, version: remote.version)
            return ResolvedReference(reference: reference, value: secret.value, session: nil, token: nil)
        }
        let matching = try list(service: reference.service).filter {
            $0.service == reference.service && (reference.account == nil || $0.account == reference.account)
        }
        guard let item = matching.first else {
            let names = reference.account.map { "service '\(reference.service)' account '\($0)'" } ?? "service '\(reference.service)'"
            throw VaultClientError(code: .notFound, message: "\(reference) names nothing: there is no item or session for \(names)")
        }
        guard matching.count == 1 else {
            let accounts = matching.prefix(5).map { "'\($0.account)'" }.joined(separator: ", ") + (matching.count > 5 ? ", ..." : "")
            throw VaultClientError(code: .badRequest, message: "\(reference) names \(matching.count) items (accounts \(accounts)); add /ACCOUNT to say which")
        }
        if item.kind == .session {
            let token = try token(service: item.service, account: item.account, minTTL: minTTL)
            let key = try Self.key(item)
            return ResolvedReference(reference: reference, value: try Self.field(reference, of: token), session: key, token: token)
        }
        let secret = try get(service: item.service, account: item.account).secret
        guard let field = reference.field else {
            return ResolvedReference(reference: reference, value: secret, session: nil, token: nil)
        }
        return ResolvedReference(reference: reference, value: try Self.field(field, of: secret, reference), session: nil, token: nil)
    }

    /// Asks for the session's token again, as `resolve` did (`--on-refresh` polls with this).
    public func refreshed(_ resolved: ResolvedReference, minTTL: Double) throws(VaultClientError) -> ResolvedReference {
        guard let session = resolved.session else { return resolved }
        let token = try token(service: session.service, account: session.account, minTTL: minTTL)
        return ResolvedReference(reference: resolved.reference, value: try Self.field(resolved.reference, of: token), session: session, token: token)
    }

    private static func key(_ item: ItemMetadata) throws(VaultClientError) -> ItemKey {
        do {
            return try ItemKey(service: item.service, account: item.account)
        } catch {
            throw VaultClientError(error)
        }
    }

    /// A session's field: the access token unless the reference asks for another.
    static func field(_ reference: SecretReference, of token: AccessToken) throws(VaultClientError) -> SecretBytes {
        switch reference.field ?? "access_token" {
        case "access_token": return SecretBytes(utf8: token.accessToken)
        case "token_type": return SecretBytes(utf8: token.tokenType)
        case "expires_at":
            guard let expiresAt = token.expiresAt else {
                throw VaultClientError(code: .notFound, message: "\(reference): the session's provider gave no expiry, so there is no expires_at")
            }
            return SecretBytes(utf8: Timestamp.rfc3339(seconds: expiresAt.timeIntervalSince1970))
        case let other:
            let refresh = other == "refresh_token" ? " (the refresh token stays with vaultd)" : ""
            throw VaultClientError(code: .badRequest, message: "\(reference): a session has no field '\(SecretReference.shown(other, quoted: false))'\(refresh); use \(sessionFields.joined(separator: ", "))")
        }
    }

    /// The key `field` of a secret that is a JSON object: a string as it is, anything else as JSON.
    static func field(_ field: String, of secret: SecretBytes, _ reference: SecretReference) throws(VaultClientError) -> SecretBytes {
        let object: [String: JSONValue]
        do {
            object = try secret.withUnsafeBytes { try JSONDecoder().decode([String: JSONValue].self, from: Data($0)) }
        } catch {
            throw VaultClientError(code: .badRequest, message: "\(reference): the item's secret is not a JSON object, so it has no fields; leave out ?field=")
        }
        guard let value = object[field] else {
            throw VaultClientError(code: .notFound, message: "\(reference): the item's JSON has no key '\(SecretReference.shown(field, quoted: false))'")
        }
        guard let text = value.scalarText else {
            throw VaultClientError(code: .badRequest, message: "\(reference): the key '\(SecretReference.shown(field, quoted: false))' holds an object or an array, not a value")
        }
        return SecretBytes(utf8: text)
    }
}
