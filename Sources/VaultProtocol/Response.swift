/// What a request came to: a result, or an error (never both, never neither).
public enum Response: Sendable {
    case success(ResultBody)
    case failure(ErrorBody)
}
