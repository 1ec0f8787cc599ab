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

    @Test func randomKeysAreDistinctAndFullLength() throws {
        let a = try SecureRandom.secretBytes(32)
        let b = try SecureRandom.secretBytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
    }
}
