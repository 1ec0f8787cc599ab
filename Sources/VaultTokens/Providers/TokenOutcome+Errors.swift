import VaultCore

extension TokenOutcome {
    /// The outcome's sentence for people (never a token: providers' messages carry none).
    var summary: String {
        switch self {
        case .granted: "granted"
        case .rejected(_, let message): message
        case .temporary(let message), .malformed(let message): message
        }
    }

    /// A failed outcome as the error a request answers with: a refusal is permission denied,
    /// the rest is "unavailable, try again".
    func error(doing action: String) -> VaultError {
        switch self {
        case .rejected(_, let message): .permissionDenied("could not \(action): \(message)")
        case .temporary(let message), .malformed(let message): .unavailable("could not \(action): \(message)")
        case .granted: .internal("unexpected success")
        }
    }
}
