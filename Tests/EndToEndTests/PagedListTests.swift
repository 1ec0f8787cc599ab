import Foundation
import Testing
import VaultClient
import VaultCore
import VaultTestSupport

/// `list` past any single response: 100,000 items (written into the vault file in one go by
/// vault-store-tool, not one vaultctl call each) listed completely by vaultctl and VaultClient,
/// which follow the pages; a page token vaultd did not give is refused.
@Suite struct PagedListTests {
    @Test func a100000ItemVaultIsListedCompletely() throws {
        let vault = VaultHarness()
        let count = 100_000
        let filled = try vault.run([BuiltProducts.path("vault-store-tool"), "bulk-add", vault.vaultFile, "bulk", String(count)])
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(try vault.ctl("set", "another", "one", input: "x").status == 0)

        let listed = try vault.ctl("list")
        #expect(listed.status == 0, "\(listed.stderr)")
        // Not a terminal: one tab-separated row per item, no header.
        let rows = listed.text.split(separator: "\n")
        #expect(rows.count == count + 1)
        #expect(Set(rows.filter { $0.hasPrefix("bulk\t") }.map { $0.split(separator: "\t")[1] }).count == count)

        let client = VaultConnection(socketPath: vault.socketPath, autostart: false)
        let items = try client.list()
        #expect(items.count == count + 1)
        #expect(Set(items.map(\.account)).count == count + 1)
        #expect(items.map { [$0.service, $0.account] } == items.map { [$0.service, $0.account] }.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) })
        #expect(try client.list(service: "bulk").count == count)
        #expect(try client.list(service: "another").map(\.account) == ["one"])
    }

    @Test func aBadPageTokenIsAnError() throws {
        let vault = VaultHarness()
        #expect(try vault.ctl("set", "s", "a", input: "x").status == 0)
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        for token in ["", "garbage", "1.AAAA", "2.cw==.YQ==", "1.!!!.YQ==", "1.cw==.", #"1.cw==.YQ==\u0000"#] {
            try connection.send(#"{"id":1,"op":"list","after":"\#(token)","limit":10}"# + "\n")
            let error = try connection.receive()?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "bad_request" && (error?["message"] as? String ?? "").contains("page token"), "\(token): \(String(describing: error))")
        }
        for limit in ["0", "-1", "10001"] {
            try connection.send(#"{"id":1,"op":"list","limit":\#(limit)}"# + "\n")
            #expect((try connection.receive()?["error"] as? [String: Any])?["code"] as? String == "bad_request", "limit \(limit)")
        }
    }
}
