import COpenSSL
import VaultCore
import VaultSystem

/// SHA-256 through OpenSSL's EVP digest API.
public enum SHA256 {
    public static let digestSize = 32

    public static func hash(_ data: UnsafeRawBufferPointer) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestSize)
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(data.baseAddress, data.count, out.baseAddress, &length, EVP_sha256(), nil)
        }
        guard ok == 1, length == digestSize else { throw CryptoError.fromOpenSSL("EVP_Digest(SHA-256)") }
        return digest
    }

    public static func hash(_ data: [UInt8]) throws -> [UInt8] {
        try data.withUnsafeBytes { (buffer) in try hash(buffer) }
    }
}

extension SHA256 {
    /// The digest of everything `fd` reads until its end, in 64 KiB pieces; nil when it reads
    /// more than `limit` bytes (hashing stops there).
    public static func hash(reading fd: FileDescriptor, limit: Int) throws -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { throw CryptoError.fromOpenSSL("EVP_DigestInit_ex(SHA-256)") }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) }
            if count == 0 { break }
            total += count
            if total > limit { return nil }
            let ok = buffer.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, count) }
            guard ok == 1 else { throw CryptoError.fromOpenSSL("EVP_DigestUpdate(SHA-256)") }
        }
        var digest = [UInt8](repeating: 0, count: digestSize)
        var length: UInt32 = 0
        guard digest.withUnsafeMutableBufferPointer({ EVP_DigestFinal_ex(context, $0.baseAddress, &length) }) == 1, length == digestSize else {
            throw CryptoError.fromOpenSSL("EVP_DigestFinal_ex(SHA-256)")
        }
        return digest
    }
}
