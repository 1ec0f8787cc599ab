import Foundation
import Testing
@testable import VaultProtocol

/// audit.log's lines and `secret_b64`: `Base64Bytes.line` writes what Foundation's
/// `base64EncodedString` and a newline did before it, and `Base64Bytes.encode` (through both of
/// `ExactBuffer`'s passes) what Foundation writes, for every length around the padding's three
/// cases and random bytes.
@Suite struct Base64LineTests {
    @Test func linesAreFoundationsBase64AndANewline() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...70) + [255, 256, 257, 4096, 65_537] {
            for _ in 0..<3 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let expected = Array(Data(bytes).base64EncodedString().utf8) + [0x0A]
                #expect(Base64Bytes.line(bytes) == expected, "\(length) bytes")
            }
        }
        #expect(Base64Bytes.line([0xFB, 0xFF, 0xBF]) == Array("+/+/\n".utf8))
    }

    struct Encoded: ExactlyWritten {
        let bytes: [UInt8]
        func write<Sink: ByteSink>(to sink: inout Sink) { bytes.withUnsafeBytes { Base64Bytes.encode($0, into: &sink) } }
    }

    @Test func encodeWritesFoundationsBase64() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...70) + [255, 256, 257, 4096] {
            for _ in 0..<3 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(ExactBuffer.written(Encoded(bytes: bytes)) == Array(Data(bytes).base64EncodedString().utf8), "\(length) bytes")
                #expect(Base64Bytes.encodedCount(length) == Data(bytes).base64EncodedString().utf8.count)
            }
        }
        #expect(ExactBuffer.written(Encoded(bytes: [0xFB, 0xFF, 0xBF, 0xFF])) == Array("+/+//w==".utf8))
    }
}
