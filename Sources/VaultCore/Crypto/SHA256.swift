import COpenSSL

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
