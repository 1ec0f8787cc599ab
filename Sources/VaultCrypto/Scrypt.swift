import COpenSSL
import VaultCore

/// scrypt (RFC 7914) through `EVP_PBE_scrypt`, for turning a passphrase into a key.
public enum Scrypt {
    /// Cost parameters; stored beside the salt so they can be raised later.
    public struct Parameters: Sendable, Equatable, CustomStringConvertible {
        /// log2 of N, the CPU/memory cost.
        public var log2N: UInt8
        public var r: UInt32
        public var p: UInt32

        public init(log2N: UInt8, r: UInt32, p: UInt32) {
            self.log2N = log2N
            self.r = r
            self.p = p
        }

        /// N = 2^17, r = 8, p = 1: 128 MiB and roughly a quarter second on a small machine.
        public static let `default` = Parameters(log2N: 17, r: 8, p: 1)
        /// The floor any vault may use (N = 2^14). Lower is refused so a file cannot be weakened.
        public static let minimum = Parameters(log2N: 14, r: 8, p: 1)
        /// Ceiling accepted from a file, so a crafted header cannot make the daemon allocate gigabytes.
        public static let maximumLog2N: UInt8 = 22
        public static let maximumMemory: UInt64 = 1 << 31

        public var n: UInt64 { 1 << UInt64(log2N) }

        /// scrypt needs 128 * N * r bytes for V plus 128 * r * p for B; leave headroom.
        public var requiredMemory: UInt64 { 128 * n * UInt64(r) + 128 * UInt64(r) * UInt64(p) + (1 << 20) }

        public func validate() throws {
            guard log2N >= Parameters.minimum.log2N, log2N <= Parameters.maximumLog2N else {
                throw CryptoError.invalidParameters("scrypt N must be between 2^\(Parameters.minimum.log2N) and 2^\(Parameters.maximumLog2N), found 2^\(log2N)")
            }
            guard r >= 1, r <= 32, p >= 1, p <= 16 else {
                throw CryptoError.invalidParameters("scrypt r must be 1...32 and p 1...16, found r=\(r) p=\(p)")
            }
            guard requiredMemory <= Parameters.maximumMemory else {
                throw CryptoError.invalidParameters("scrypt parameters need \(requiredMemory >> 20) MiB, more than the \(Parameters.maximumMemory >> 20) MiB allowed")
            }
        }

        public var description: String { "scrypt(N=2^\(log2N), r=\(r), p=\(p))" }
    }

    /// Derives `length` bytes. `unchecked` skips the vault's policy limits (for published test vectors).
    public static func deriveKey(
        passphrase: SecretBytes, salt: [UInt8], parameters: Parameters, length: Int = 32, unchecked: Bool = false
    ) throws -> SecretBytes {
        if !unchecked { try parameters.validate() }
        return try SecretBytes(count: length, lockInMemory: true) { (out) in
            // A zero-length passphrase still needs a valid pointer.
            let placeholder: CChar = 0
            let ok = passphrase.withUnsafeBytes { pass in
                salt.withUnsafeBufferPointer { saltBuffer in
                    withUnsafePointer(to: placeholder) { empty in
                    EVP_PBE_scrypt(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self) ?? empty, pass.count,
                        saltBuffer.baseAddress, saltBuffer.count,
                        parameters.n, UInt64(parameters.r), UInt64(parameters.p),
                        parameters.requiredMemory,
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
                    }
                }
            }
            guard ok == 1 else { throw CryptoError.fromOpenSSL("EVP_PBE_scrypt") }
        }
    }
}
