import Foundation
import Testing
@testable import VaultProtocol

/// `JSONString.escape` copies runs of ASCII that need no escape whole, escapes other ASCII byte by
/// byte, and takes runs of other bytes through Swift's UTF-8 parser. Against JSONEncoder (slashes unescaped) of what `String(decoding:)` makes of the same
/// bytes, over random mixes of ASCII, control characters, well-formed and malformed UTF-8.
@Suite struct JSONStringEscapeTests {
    static let pieces: [[UInt8]] = [
        Array("plain".utf8), [0x22], [0x5C], [0x2F], [0x00], [0x1F], [0x7F], [0x0A, 0x0D, 0x09, 0x08, 0x0C],
        Array("é".utf8), Array("日本".utf8), Array("🎉".utf8), Array("\u{2028}\u{FEFF}".utf8),
        [0x80], [0xBF], [0xC0, 0x80], [0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x8E], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xFE],
    ]

    static func expected(_ bytes: [UInt8]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let quoted = Array(try encoder.encode(String(decoding: bytes, as: UTF8.self)))
        return Array(quoted.dropFirst().dropLast())
    }

    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var output = Collected()
        var counter = ByteCount()
        bytes.withUnsafeBytes { JSONString.escape($0, into: &output) }
        bytes.withUnsafeBytes { JSONString.escape($0, into: &counter) }
        #expect(counter.count == output.bytes.count)
        return output.bytes
    }

    @Test func randomMixesEscapeAsJSONEncoderWritesTheRepairedString() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                bytes += Self.pieces.randomElement(using: &generator)!
                if Bool.random(using: &generator) { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
            }
            #expect(Self.escaped(bytes) == (try Self.expected(bytes)), "round \(round): \(bytes)")
        }
        for piece in Self.pieces { #expect(Self.escaped(piece) == (try Self.expected(piece)), "\(piece)") }
    }
}

/// Everything put, in order.
private struct Collected: ByteSink {
    var bytes: [UInt8] = []
    mutating func put(_ byte: UInt8) { bytes.append(byte) }
    mutating func put(_ bytes: UnsafeRawBufferPointer) { self.bytes += bytes }
}
