import VaultCore
import VaultTokens

/// `vaultctl session import`'s JSON (a record, an OAuth 2.0 token response, a supabase-js or
/// supabase-swift session), alone and with each provider's settings: what imports is a record
/// its provider accepts, stored as JSON that reads back as the same record.
enum SessionImportTarget: FuzzTarget {
    static let name = "session-import"
    static let maxLength = 4096
    static let settings: [[String: String]] = [
        [:],
        ["token_endpoint": "http://127.0.0.1:9/token", "client_id": "c"],
        ["provider": "supabase", "project_url": "http://127.0.0.1:9", "api_key": "k"],
        ["provider": "firebase", "api_key": "k"],
    ]

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        for settings in Self.settings {
            guard let record = try? SessionRecord.importing(input, now: 1_800_000_000, settings: settings) else { continue }
            do {
                try ProviderRegistry.type(of: record.provider).checkImported(record)
            } catch {
                continue
            }
            guard let stored = try? record.encoded() else { continue }
            guard let again = try? SessionRecord.importing(stored.unprotectedBytes, now: 1_800_000_000) else {
                throw FuzzFinding("a stored session does not read back")
            }
            try FuzzFinding.check(again == record, "a stored session reads back as another")
        }
    }
}
