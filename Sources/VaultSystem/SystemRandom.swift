import CVaultShims

/// Random bytes from the kernel (getrandom(2), which blocks only until the pool is first seeded).
///
/// For what programs without libcrypto need: public random bytes such as a temp file's unique
/// suffix. Keys and salts come from VaultCrypto's `SecureRandom`, AES-GCM's nonces from its `NoncePool`.
public enum SystemRandom {
    /// Fills `buffer` completely: getrandom may return fewer bytes than asked (more than 256 at a
    /// time, or a signal), so it is called until the buffer is full.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(Errno) {
        guard let base = buffer.baseAddress else { return }
        var filled = 0
        while filled < buffer.count {
            let count = try retryingOnInterrupt { vault_getrandom(base + filled, buffer.count - filled) }
            filled += count
        }
    }

    /// `count` public random bytes.
    public static func bytes(_ count: Int) throws(Errno) -> [UInt8] {
        precondition(count >= 0)
        var result = [UInt8](repeating: 0, count: count)
        // withUnsafeMutableBytes rethrows untyped errors: the Errno is carried out by hand.
        var failure: Errno?
        result.withUnsafeMutableBytes { (buffer) in
            do throws(Errno) { try fill(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
        return result
    }
}
