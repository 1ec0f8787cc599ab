import Foundation
import Testing

/// The socat examples in docs/protocol.md, run as written against a real vaultd.
@Suite struct ProtocolDocumentationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theSocatExamplesRunAsDocumented() throws {
        let document = try String(contentsOfFile: Self.packageRoot + "/docs/protocol.md", encoding: .utf8)
        guard let start = document.range(of: "```sh\n"), let end = document.range(of: "```", range: start.upperBound..<document.endIndex) else {
            Issue.record("no sh block in docs/protocol.md")
            return
        }
        let script = String(document[start.upperBound..<end.lowerBound])
        let vault = VaultHarness()
        _ = try vault.startDaemon()
        let result = try vault.run(["/bin/sh", "-e", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 8)
        guard lines.count == 8 else { return }
        #expect(lines[0].contains(#""id":1,"ok":true"#))
        #expect(lines[1].hasPrefix(#"{"id":2,"ok":true,"result":{"item":{"account":"me","comment":"","created":""#))
        #expect(lines[1].hasSuffix(#","secret":"s3cret","service":"demo"}}}"#))
        #expect(lines[2].contains(#""items":[{"account":"me""#))
        #expect(lines[3] == #"{"error":{"code":"not_found","message":"no item for service 'demo' account 'nobody'"},"id":4,"ok":false}"#)
        #expect(lines[4] == #"{"id":5,"ok":true,"result":{}}"#)
        #expect(lines[5].contains(#""id":6,"ok":true"#))
        #expect(lines[6].hasPrefix(#"{"error":{"code":"bad_request""#) && lines[6].hasSuffix(#""id":null,"ok":false}"#))
        #expect(lines[7].contains(#""id":7,"ok":true"#))
    }
}
