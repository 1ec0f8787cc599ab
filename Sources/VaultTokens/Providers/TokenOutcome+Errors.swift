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

    /// A granted outcome applied to `template` (the session before its first tokens); anything
    /// else as the error of `action`.
    func session(from template: SessionRecord, doing action: String) throws -> SessionRecord {
        guard case .granted(let grant) = self else { throw error(doing: action) }
        var record = template
        record.apply(grant)
        return record
    }

    /// A refresh's outcome with "sign in again" (`.rejected`) kept only for `codes`, the ones
    /// the provider documents as meaning the session is over; any other refusal (a proxy's 403,
    /// `invalid_client`) becomes `.malformed`, so the stored session is kept as it is.
    func signingInAgain(only codes: Set<String>, from who: String) -> TokenOutcome {
        guard case .rejected(let code, let message) = self, !codes.contains(code) else { return self }
        return .malformed("\(who) refused the refresh (\(message)), which is not one of its sign-in-again answers")
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
