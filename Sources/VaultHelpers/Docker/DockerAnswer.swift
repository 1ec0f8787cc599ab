import VaultClient
import VaultCore

/// What docker-credential-vault prints on stdout, built into one buffer the caller writes and
/// wipes: JSON, with every string escaped by `JSONText` (a secret straight from `SecretBytes`).
enum DockerAnswer {
    /// `get`'s `{"ServerURL":…,"Username":…,"Secret":…}` and a newline.
    static func credentials(serverURL: String, username: String, secret: SecretBytes) -> [UInt8] {
        var answer: [UInt8] = []
        answer.reserveCapacity(64 + serverURL.utf8.count * 6 + username.utf8.count * 6 + secret.count * 6)
        answer.append(contentsOf: Array(#"{"ServerURL":"#.utf8))
        JSONText.appendString(serverURL, to: &answer)
        answer.append(contentsOf: Array(#","Username":"#.utf8))
        JSONText.appendString(username, to: &answer)
        answer.append(contentsOf: Array(#","Secret":"#.utf8))
        secret.withUnsafeBytes { JSONText.appendString($0, to: &answer) }
        answer.append(contentsOf: Array("}\n".utf8))
        return answer
    }

    /// `list`'s `{"SERVER_URL":"USERNAME",…}` and a newline, from (server URL, username)
    /// pairs: each server URL once, with the username of its first pair.
    static func list(_ entries: [(String, String)]) -> [UInt8] {
        var answer = Array("{".utf8)
        var seen = Set<String>()
        for (serverURL, username) in entries {
            guard seen.insert(serverURL).inserted else { continue }
            if seen.count > 1 { answer.append(UInt8(ascii: ",")) }
            JSONText.appendString(serverURL, to: &answer)
            answer.append(UInt8(ascii: ":"))
            JSONText.appendString(username, to: &answer)
        }
        answer.append(contentsOf: Array("}\n".utf8))
        return answer
    }

    /// The username and secret `get` gives for what vault found: docker-credential-secretservice's
    /// item (its `username` attribute) or vault's own (its account); nil for anything else.
    static func found(_ resolved: ResolvedCredential) -> (username: String, secret: SecretBytes)? {
        switch resolved {
        case .foreign(let item, let secret): (item.attributes["username"] ?? "", secret)
        case .item(let item): (item.metadata.account, item.secret)
        case .token, .ambiguous, .nothing: nil
        }
    }
}
