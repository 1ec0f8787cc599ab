import Testing
import VaultCore
@testable import VaultCrypto

/// X25519 and HKDF against their RFCs' vectors, and DeviceSeal: only the recipient's key with
/// the same context opens it; a wrong key, context, or any altered byte is refused.
@Suite struct DeviceSealTests {
    @Test func x25519MatchesRFC7748() throws {
        let alice = try X25519KeyPair(privateKey: SecretBytes(hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")))
        let bob = try X25519KeyPair(privateKey: SecretBytes(hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")))
        #expect(hexString(alice.publicKey) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(hexString(bob.publicKey) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(try alice.sharedSecret(with: bob.publicKey) == SecretBytes(hex(shared)))
        #expect(try bob.sharedSecret(with: alice.publicKey) == SecretBytes(hex(shared)))
        // A peer key of small order (here 0) gives no shared secret; a short one is refused.
        #expect(throws: CryptoError.self) { try alice.sharedSecret(with: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.self) { try alice.sharedSecret(with: [1, 2, 3]) }
        #expect(try X25519KeyPair.generate().publicKey != X25519KeyPair.generate().publicKey)
    }

    @Test func hkdfMatchesRFC5869() throws {
        let okm = try HKDF.sha256(SecretBytes(hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b")), salt: hex("000102030405060708090a0b0c"),
                                  info: hex("f0f1f2f3f4f5f6f7f8f9"), count: 42)
        #expect(okm == SecretBytes(hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")))
        // RFC 4231 test case 2.
        #expect(hexString(try HKDF.hmacSHA256(key: SecretBytes(Array("Jefe".utf8)), Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func onlyTheRecipientWithTheSameContextOpensASeal() throws {
        let device = try X25519KeyPair.generate()
        let other = try X25519KeyPair.generate()
        let secret = SecretBytes(utf8: "the space key")
        let sealed = try DeviceSeal.seal(secret, to: device.publicKey, context: Array("space A gen 1".utf8))
        #expect(sealed.count == DeviceSeal.overhead + secret.count)
        #expect(try DeviceSeal.open(sealed, with: device, context: Array("space A gen 1".utf8)) == secret)
        #expect(throws: CryptoError.authenticationFailed) { try DeviceSeal.open(sealed, with: other, context: Array("space A gen 1".utf8)) }
        #expect(throws: CryptoError.authenticationFailed) { try DeviceSeal.open(sealed, with: device, context: Array("space B gen 1".utf8)) }
        for index in [0, 31, 32, 44, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 1
            #expect(throws: CryptoError.authenticationFailed) { try DeviceSeal.open(altered, with: device, context: Array("space A gen 1".utf8)) }
        }
        #expect(throws: CryptoError.authenticationFailed) { try DeviceSeal.open(Array(sealed.prefix(59)), with: device, context: []) }
        // Two seals of one secret share nothing (a fresh ephemeral key and nonce each time).
        #expect(try DeviceSeal.seal(secret, to: device.publicKey, context: []).prefix(32) != DeviceSeal.seal(secret, to: device.publicKey, context: []).prefix(32))
    }

    @Test func aSealFromASenderOpensOnlyWithThatSendersKey() throws {
        let device = try X25519KeyPair.generate(), sender = try X25519KeyPair.generate(), impostor = try X25519KeyPair.generate()
        let secret = SecretBytes(utf8: "space key")
        let sealed = try DeviceSeal.seal(secret, to: device.publicKey, from: sender, context: [7])
        #expect(try DeviceSeal.open(sealed, with: device, from: sender.publicKey, context: [7]) == secret)
        #expect(throws: CryptoError.authenticationFailed) { try DeviceSeal.open(sealed, with: device, from: impostor.publicKey, context: [7]) }
        #expect(throws: CryptoError.authenticationFailed) { try DeviceSeal.open(sealed, with: device, context: [7]) }
        // Anyone can seal to the device, but not as the sender.
        let forged = try DeviceSeal.seal(secret, to: device.publicKey, from: impostor, context: [7])
        #expect(throws: CryptoError.authenticationFailed) { try DeviceSeal.open(forged, with: device, from: sender.publicKey, context: [7]) }
    }
}
