import COpenSSL
import VaultCore

/// Random bytes from OpenSSL's CSPRNG.
public enum SecureRandom {
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard buffer.count > 0 else { return }
        guard RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw CryptoError.fromOpenSSL("RAND_bytes")
        }
    }

    /// Public random bytes (salts, identifiers; AES-GCM's nonces come from `NoncePool`).
    public static func bytes(_ count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        try result.withUnsafeMutableBytes { (buffer) in try fill(buffer) }
        return result
    }

    /// Secret random bytes (keys), wiped on release and locked in memory where allowed.
    public static func secretBytes(_ count: Int) throws -> SecretBytes {
        try SecretBytes(count: count, lockInMemory: true) { (buffer) in try fill(buffer) }
    }
}
