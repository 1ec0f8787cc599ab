import Testing
import VaultCore
import VaultCrypto

@Suite struct KeyDerivationTests {
    /// RFC 7914 section 12, third vector (N = 1024, r = 8, p = 16).
    @Test func scryptMatchesRFC7914() throws {
        let key = try Scrypt.deriveKey(
            passphrase: SecretBytes(utf8: "password"), salt: Array("NaCl".utf8),
            parameters: Scrypt.Parameters(log2N: 10, r: 8, p: 16), length: 64, unchecked: true)
        #expect(hexString(key.unprotectedBytes) == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
    }

    @Test func scryptRefusesParametersOutsideThePolicy() {
        #expect(throws: CryptoError.self) {
            try Scrypt.deriveKey(passphrase: SecretBytes(utf8: "x"), salt: [1], parameters: Scrypt.Parameters(log2N: 10, r: 8, p: 1))
        }
        #expect(throws: CryptoError.self) { try Scrypt.Parameters(log2N: 30, r: 8, p: 1).validate() }
        #expect(throws: CryptoError.self) { try Scrypt.Parameters(log2N: 20, r: 32, p: 16).validate() }
        #expect(throws: Never.self) { try Scrypt.Parameters.default.validate() }
        #expect(Scrypt.Parameters.default.log2N >= 16)
    }

    @Test func sha256MatchesFIPS180Vector() throws {
        #expect(hexString(try SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
