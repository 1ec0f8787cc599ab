import VaultCore
internal import VaultProtocol

extension VaultConnection {
    /// `logout`, with `local` true: forget the session here without asking its provider.
    /// (Beside Connection/ rather than in it; `logout(service:account:)` there is the same
    /// request without the flag.)
    public func logout(service: String, account: String? = nil, local: Bool) throws(VaultClientError) -> String {
        guard let message = try perform(.logout(SessionName(service: service, account: account, local: local ? true : nil))).message else {
            throw .malformedAnswer("a required part of the answer is missing")
        }
        return message
    }
}
