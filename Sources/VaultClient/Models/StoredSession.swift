/// The part of vaultd's session record (the secret of a `session` item, docs/protocol.md) that a
/// supabase-swift `Session` is made of.
struct StoredSession: Decodable {
    var accessToken: String
    var refreshToken: String?
    var tokenType: String
    var expiresAt: Double?
    var userID: String?
    var email: String?

    enum CodingKeys: String, CodingKey {
        case email
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case userID = "user_id"
    }
}
