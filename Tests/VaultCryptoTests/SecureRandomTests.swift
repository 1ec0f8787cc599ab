import Testing
import VaultCore
import VaultCrypto

@Suite struct SecureRandomTests {
    @Test func randomKeysAreDistinctAndFullLength() throws {
        let a = try SecureRandom.secretBytes(32)
        let b = try SecureRandom.secretBytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
    }
}
