import Foundation
import Testing
import VaultProtocol

/// `Boxed` fields code as the optionals they hold: absent when nil, and absent or null decoded as
/// nil; a present value round-trips; a copy shares the value and a write to the copy is its own.
@Suite struct BoxedTests {
    struct Part: Codable, Sendable, Equatable { var name: String }
    struct Holder: Codable, Sendable {
        @Boxed var part: Part?
        var plain: Int?
    }

    @Test func nilIsAbsentAndAValueRoundTrips() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(Holder(part: nil, plain: 1)), as: UTF8.self) == #"{"plain":1}"#)
        let full = try encoder.encode(Holder(part: Part(name: "a"), plain: nil))
        #expect(String(decoding: full, as: UTF8.self) == #"{"part":{"name":"a"}}"#)
        #expect(try JSONDecoder().decode(Holder.self, from: full).part == Part(name: "a"))
        #expect(try JSONDecoder().decode(Holder.self, from: Data(#"{}"#.utf8)).part == nil)
        #expect(try JSONDecoder().decode(Holder.self, from: Data(#"{"part":null}"#.utf8)).part == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Holder.self, from: Data(#"{"part":{"name":3}}"#.utf8)) }
    }

    @Test func aCopysWriteIsItsOwn() {
        var first = Holder(part: Part(name: "a"), plain: nil)
        var second = first
        second.part?.name = "b"
        #expect(first.part?.name == "a" && second.part?.name == "b")
        first.part = nil
        #expect(first.part == nil && second.part == Part(name: "b"))
    }

    @Test func resultBodysBoxedFieldsAreAbsentWhenNil() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(ResultBody(message: "hi")), as: UTF8.self) == #"{"message":"hi"}"#)
        let decoded = try JSONDecoder().decode(ResultBody.self, from: Data(#"{"message":"hi","status":null}"#.utf8))
        #expect(decoded.message == "hi" && decoded.status == nil && decoded.token == nil)
    }
}
