import COpenSSL
import VaultCore

/// AES-128-CBC with PKCS#7 padding through OpenSSL's EVP interface: how the Secret Service's
/// `dh-ietf1024-sha256-aes128-cbc-pkcs7` sessions carry secrets. Unauthenticated by design of
/// that protocol (the bus is the channel; the encryption only keeps secrets out of bus logs).
public enum AESCBC {
    public static let keySize = 16
    public static let blockSize = 16

    /// `plaintext` under `key` and a fresh random IV; both come back.
    public static func encrypt(_ plaintext: SecretBytes, key: SecretBytes) throws -> (iv: [UInt8], ciphertext: [UInt8]) {
        let iv = try SecureRandom.bytes(blockSize)
        var output = [UInt8](repeating: 0, count: plaintext.count + blockSize)
        let written = try plaintext.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { out in try run(encrypt: true, key: key, iv: iv, input: input, output: out) }
        }
        return (iv, Array(output.prefix(written)))
    }

    /// The plaintext, in memory wiped on release; fails on a wrong size, IV or padding.
    public static func decrypt(_ ciphertext: [UInt8], key: SecretBytes, iv: [UInt8]) throws -> SecretBytes {
        guard iv.count == blockSize else { throw CryptoError.invalidParameters("the IV must be \(blockSize) bytes, not \(iv.count)") }
        guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0 else {
            throw CryptoError.invalidParameters("AES-CBC ciphertext is a positive multiple of \(blockSize) bytes, not \(ciphertext.count)")
        }
        var written = 0
        let padded = try SecretBytes(count: ciphertext.count + blockSize) { out in
            written = try ciphertext.withUnsafeBytes { input in try run(encrypt: false, key: key, iv: iv, input: input, output: out) }
        }
        return padded.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<written])) }
    }

    private static func run(encrypt: Bool, key: SecretBytes, iv: [UInt8], input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) throws -> Int {
        guard key.count == keySize else { throw CryptoError.invalidParameters("AES-128 keys are \(keySize) bytes") }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let started = key.withUnsafeBytes { keyBytes in
            EVP_CipherInit_ex(context, EVP_aes_128_cbc(), nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), iv, encrypt ? 1 : 0)
        }
        guard started == 1 else { throw CryptoError.fromOpenSSL("EVP_CipherInit_ex(AES-128-CBC)") }
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var length: Int32 = 0
        guard EVP_CipherUpdate(context, out, &length, input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count)) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_CipherUpdate")
        }
        var final: Int32 = 0
        guard EVP_CipherFinal_ex(context, out + Int(length), &final) == 1 else {
            ERR_clear_error()
            throw CryptoError.invalidParameters("AES-CBC padding does not check out (wrong key or damaged data)")
        }
        return Int(length + final)
    }
}
