import COpenSSL
import VaultCore

/// One side's Diffie-Hellman key pair in the Secret Service's group (`SecretServiceKeyExchange`):
/// a secret exponent of `SecretServiceKeyExchange.exponentBits` random bits in OpenSSL's secure
/// heap, cleared when freed, and the public key 2^secret mod p. It may be made ahead of the
/// session that uses it; it is used for one agreement only.
public final class SecretServiceKeyPair: @unchecked Sendable {
    // Neither changes after init; OpenSSL only reads the exponent.
    let secret: OpaquePointer
    /// 2^secret mod p, big-endian, `SecretServiceKeyExchange.groupBytes` long.
    public let publicKey: [UInt8]

    public init() throws {
        guard let context = BN_CTX_secure_new() else { throw CryptoError.fromOpenSSL("BN_CTX_secure_new") }
        defer { BN_CTX_free(context) }
        let prime = try SecretServiceKeyExchange.prime()
        defer { BN_free(prime) }
        guard let secret = BN_secure_new() else { throw CryptoError.fromOpenSSL("BN_secure_new") }
        guard let generator = BN_new(), let ours = BN_new() else {
            BN_clear_free(secret)
            throw CryptoError.fromOpenSSL("BN_new")
        }
        defer { BN_free(generator); BN_free(ours) }
        // The top bit set: the exponent has exactly `exponentBits` bits (see `exponentBits`).
        guard BN_set_word(generator, 2) == 1,
              BN_priv_rand(secret, Int32(SecretServiceKeyExchange.exponentBits), BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) == 1 else {
            BN_clear_free(secret)
            throw CryptoError.fromOpenSSL("BN_priv_rand")
        }
        BN_set_flags(secret, Int32(BN_FLG_CONSTTIME))
        var publicKey = [UInt8](repeating: 0, count: SecretServiceKeyExchange.groupBytes)
        guard BN_mod_exp_mont_consttime(ours, generator, secret, prime, context, nil) == 1,
              BN_bn2binpad(ours, &publicKey, Int32(publicKey.count)) == Int32(publicKey.count) else {
            BN_clear_free(secret)
            throw CryptoError.fromOpenSSL("BN_mod_exp")
        }
        self.secret = secret
        self.publicKey = publicKey
    }

    deinit { BN_clear_free(secret) }
}
