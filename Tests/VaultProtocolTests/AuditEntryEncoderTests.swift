import Foundation
import Testing
@testable import VaultProtocol

/// The audit record's own encoder writes exactly what JSONEncoder writes (sorted keys, slashes
/// unescaped) for hostile text in every field, every field present or absent, and any pid; what
/// it writes reads back as the same record.
@Suite struct AuditEntryEncoderTests {
    static let texts: [String?] = [nil, "", "plain", "/usr/bin/tool", "quote \" backslash \\ slash /", "new\nline\ttab\r\u{8}\u{C}",
                                   "\u{0}\u{1}\u{1F}\u{7F}", "é ü ß 日本 🎉", "\u{2028}\u{2029}\u{FEFF}", String(repeating: "x", count: 3000)]

    @Test func recordsMatchJSONEncoderByteForByteAndReadBack() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var compared = 0
        for (index, text) in Self.texts.enumerated() {
            for pid: Int32? in [nil, 0, 1, -1, Int32.max, Int32.min] {
                let other = { (offset: Int) in Self.texts[(index + offset) % Self.texts.count] }
                let entry = AuditEntryBody(
                    time: other(1) ?? "2026-12-01T12:00:00.001Z", op: other(2) ?? "get", service: text, account: other(3),
                    result: other(4) ?? "ok", pid: pid, exe: other(5), script: other(6), unit: other(7), grant: other(8))
                let fast = AuditEntryEncoder.encode(entry)
                #expect(fast == Array(try encoder.encode(entry)), "\(index) \(String(describing: pid))")
                #expect(try JSONDecoder().decode(AuditEntryBody.self, from: Data(fast)) == entry)
                compared += 1
            }
        }
        #expect(compared == Self.texts.count * 6)
    }

    @Test func malformedUTF8BecomesTheReplacementCharacterAsStringDoes() throws {
        let broken = String(decoding: [0x61, 0xFF, 0x62, 0xC3], as: UTF8.self)
        let entry = AuditEntryBody(time: "t", op: "get", service: broken, account: nil, result: "ok", pid: nil, exe: nil)
        #expect(try JSONDecoder().decode(AuditEntryBody.self, from: Data(AuditEntryEncoder.encode(entry))) == entry)
    }
}
