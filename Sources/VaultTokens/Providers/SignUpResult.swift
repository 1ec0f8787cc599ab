/// What a sign-up gives.
public enum SignUpResult: Sendable {
    case signedIn(SessionRecord)
    /// No session yet (e.g. email confirmation is on); the sentence says what to do.
    case pending(String)
}
