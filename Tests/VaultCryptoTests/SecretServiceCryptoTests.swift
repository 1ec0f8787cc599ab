import Testing
import VaultCore
import VaultCrypto

/// The Secret Service's DH session crypto: HKDF-SHA256 against RFC 5869, the key agreement's
/// range checks and consistency, and AES-128-CBC/PKCS7 round trips and refusals.
@Suite struct SecretServiceCryptoTests {
    func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    @Test func hkdfMatchesRFC5869TestCase3() throws {
        // No salt, no info (what the Secret Service uses).
        let key = try SecretServiceKeyExchange.hkdfSHA256(SecretBytes([UInt8](repeating: 0x0b, count: 22)), count: 32)
        #expect(key.unprotectedBytes == bytes("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"))
    }

    @Test func agreementWithTheGeneratorIsHKDFOfOurOwnPublicKeyAndOutOfRangeKeysAreRefused() throws {
        // With the peer's key g, the shared secret g^x is our own public key.
        let (publicKey, key) = try SecretServiceKeyExchange.agree(peer: [2])
        #expect(publicKey.count == 128)
        #expect(key.count == 16)
        #expect(key == (try SecretServiceKeyExchange.hkdfSHA256(SecretBytes(publicKey), count: 16)))
        let other = try SecretServiceKeyExchange.agree(peer: [2])
        #expect(other.publicKey != publicKey, "a fresh secret exponent every time")

        let prime = bytes("FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF")
        var primeMinusOne = prime
        primeMinusOne[127] -= 1
        for peer in [[], [0], [1], [0, 1], primeMinusOne, prime, [UInt8](repeating: 0xff, count: 128), [UInt8](repeating: 2, count: 129)] {
            #expect(throws: CryptoError.self) { try SecretServiceKeyExchange.agree(peer: peer) }
        }
    }

    /// Two key pairs made ahead agree on one key, each from the other's public key (what the
    /// client computes is what vaultd computes); each pair's exponent is fresh.
    @Test func keyPairsMadeAheadAgreeWithEachOther() throws {
        let ours = try SecretServiceKeyPair(), theirs = try SecretServiceKeyPair()
        #expect(ours.publicKey.count == 128 && ours.publicKey != theirs.publicKey)
        let key = try SecretServiceKeyExchange.agree(peer: theirs.publicKey, with: ours)
        #expect(key == (try SecretServiceKeyExchange.agree(peer: ours.publicKey, with: theirs)))
        #expect(key.count == 16)
        #expect(throws: CryptoError.self) { try SecretServiceKeyExchange.agree(peer: [1], with: ours) }
    }

    @Test func aesCBCRoundTripsAndRefusesBadPaddingSizesAndIVs() throws {
        let key = SecretBytes([UInt8](repeating: 7, count: 16))
        for size in [0, 1, 15, 16, 17, 1000] {
            let secret = SecretBytes([UInt8](repeating: 0xa5, count: size))
            let (iv, ciphertext) = try AESCBC.encrypt(secret, key: key)
            #expect(iv.count == 16 && ciphertext.count == (size / 16 + 1) * 16)
            #expect(try AESCBC.decrypt(ciphertext, key: key, iv: iv) == secret)
        }
        let (iv, ciphertext) = try AESCBC.encrypt(SecretBytes(utf8: "secret"), key: key)
        #expect(throws: CryptoError.self) { try AESCBC.decrypt(ciphertext, key: SecretBytes([UInt8](repeating: 8, count: 16)), iv: iv) }
        #expect(throws: CryptoError.self) { try AESCBC.decrypt(Array(ciphertext.prefix(15)), key: key, iv: iv) }
        #expect(throws: CryptoError.self) { try AESCBC.decrypt([], key: key, iv: iv) }
        #expect(throws: CryptoError.self) { try AESCBC.decrypt(ciphertext, key: key, iv: Array(iv.prefix(8))) }
        #expect(throws: CryptoError.self) { try AESCBC.encrypt(SecretBytes(utf8: "x"), key: SecretBytes([1, 2, 3])) }
    }
}
