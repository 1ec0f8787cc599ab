#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// The page token of a paged `list` (`next`, given back as `after`): the key of the page's last
/// item, so the next page starts after it even when items were added or deleted meanwhile.
/// Opaque to clients; "1." then the base64 of the service and of the account, dot-separated.
public enum ListPageToken {
    public static func token(after key: ItemKey) -> String {
        "1." + Data(key.service.utf8).base64EncodedString() + "." + Data(key.account.utf8).base64EncodedString()
    }

    /// The key `token` names; `invalid_input` when it is not a token a daemon gave.
    public static func key(_ token: String) throws -> ItemKey {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "1",
              let service = Data(base64Encoded: String(parts[1])).flatMap({ String(data: $0, encoding: .utf8) }),
              let account = Data(base64Encoded: String(parts[2])).flatMap({ String(data: $0, encoding: .utf8) }),
              let key = try? ItemKey(service: service, account: account)
        else {
            throw VaultError.invalidInput("'after' is not a page token vaultd gave ('next' of the previous page): start the listing again without 'after'")
        }
        return key
    }
}
