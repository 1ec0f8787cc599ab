#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// supabase-swift's `Session` as its JSONEncoder writes it (camelCase: `accessToken`,
/// `refreshToken`, `expiresIn`, `expiresAt`, `tokenType`, `user`, and optional `providerToken`,
/// `providerRefreshToken`, `weakPassword`), split into what vaultd keeps and refreshes (the
/// tokens) and the rest (the user object chiefly), which `VaultAuthStorage` keeps beside it.
struct SupabaseSession {
    /// The fields vaultd's session record holds; every other field is "the rest".
    static let tokenFields: Set<String> = ["accessToken", "refreshToken", "tokenType", "expiresAt"]

    var fields: [String: JSONValue]

    /// nil when `data` is not a Session: a JSON object with a text `accessToken` and
    /// `refreshToken` and an object `user`.
    init?(_ data: Data) {
        guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: data),
              fields["accessToken"]?.string != nil, fields["refreshToken"]?.string != nil,
              case .object? = fields["user"] else { return nil }
        self.fields = fields
    }

    init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// Everything but the tokens: what is stored beside the session.
    var rest: [String: JSONValue] { fields.filter { !Self.tokenFields.contains($0.key) } }

    /// The session as supabase-swift reads it: `rest` (or, when there is none, a user made from
    /// what the record knows) with the record's current tokens.
    static func current(_ record: StoredSession, rest: [String: JSONValue]?, created: Date, modified: Date, now: Date = Date()) -> SupabaseSession {
        var fields = rest ?? [
            "user": .object([
                "id": .string(record.userID ?? ""), "email": record.email.map(JSONValue.string) ?? .null,
                "aud": .string("authenticated"), "appMetadata": .object([:]), "userMetadata": .object([:]),
                "createdAt": .string(created.formatted(.iso8601)), "updatedAt": .string(modified.formatted(.iso8601)),
            ]),
        ]
        let expiresAt = record.expiresAt ?? now.timeIntervalSince1970 + 3600
        fields["accessToken"] = .string(record.accessToken)
        fields["refreshToken"] = .string(record.refreshToken ?? "")
        fields["tokenType"] = .string(record.tokenType)
        fields["expiresAt"] = .number(expiresAt)
        if fields["expiresIn"]?.number == nil {
            fields["expiresIn"] = .number(max(0, (expiresAt - now.timeIntervalSince1970).rounded()))
        }
        return SupabaseSession(fields: fields)
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(JSONValue.object(fields))
    }
}
