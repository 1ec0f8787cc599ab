/// What a sign-in or sign-up did: the session stored, and/or a message for the user (Supabase
/// sign-up with email confirmation stores no session until the user follows the link).
public struct SignInResult: Sendable, Equatable {
    public var session: ItemMetadata?
    public var message: String?
}
