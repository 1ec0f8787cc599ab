import Testing
import VaultCore

@Suite struct SecretBytesTests {
    @Test func neverDescribesItsContents() {
        let secret = SecretBytes(utf8: "hunter2")
        #expect(String(describing: secret) == "<redacted>")
        #expect(!String(reflecting: secret).contains("hunter2"))
        #expect("\(secret)" == "<redacted>")
    }

    @Test func equalityComparesBytesAndLength() {
        #expect(SecretBytes(utf8: "abc") == SecretBytes([97, 98, 99]))
        #expect(SecretBytes(utf8: "abc") != SecretBytes(utf8: "abd"))
        #expect(SecretBytes(utf8: "abc") != SecretBytes(utf8: "abcd"))
        #expect(SecretBytes.empty == SecretBytes([]))
    }

    @Test func holdsArbitraryBytes() {
        let bytes: [UInt8] = [0, 0xff, 0xc3, 0x28, 0, 10]
        let secret = SecretBytes(bytes)
        #expect(secret.unprotectedBytes == bytes)
        #expect(secret.utf8String == nil)
        #expect(SecretBytes(utf8: "héllo").utf8String == "héllo")
    }

    @Test func wipeClearsScratchBuffers() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 1)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xAB)
        SecretBytes.wipe(buffer)
        #expect(buffer.allSatisfy { $0 == 0 })
    }

    @Test func equalityReadsEveryByte() {
        // A difference in the last byte only, and in the first only: both unequal.
        var bytes = [UInt8](repeating: 7, count: 4096)
        let base = SecretBytes(bytes)
        bytes[4095] = 8
        #expect(base != SecretBytes(bytes))
        bytes[4095] = 7
        bytes[0] = 0
        #expect(base != SecretBytes(bytes))
        bytes[0] = 7
        #expect(base == SecretBytes(bytes))
    }
}
