#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import VaultCore

/// AES-256-GCM through OpenSSL's EVP interface.
public enum AESGCM {
    public static let keySize = 32
    public static let nonceSize = 12
    public static let tagSize = 16

    /// A ciphertext with the nonce it was sealed under and its authentication tag.
    public struct SealedBox: Sendable, Equatable {
        public var nonce: [UInt8]
        public var ciphertext: [UInt8]
        public var tag: [UInt8]

        public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }
    }

    /// Encrypts under a fresh random 96-bit nonce (from `NoncePool`). `nonce` is for test vectors only.
    public static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecretBytes, authenticating aad: [UInt8], nonce: [UInt8]? = nil
    ) throws -> SealedBox {
        let nonce = try nonce ?? NoncePool.bytes(nonceSize)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagSize)
        try ciphertext.withUnsafeMutableBytes { ciphertextOut in
            try tag.withUnsafeMutableBytes { tagOut in
                try seal(plaintext, key: key, authenticating: aad, nonce: nonce, ciphertext: ciphertextOut, tag: tagOut)
            }
        }
        return SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Encrypts under a fresh random nonce into one buffer: nonce ‖ ciphertext ‖ tag, the form
    /// audit.log's records take (three arrays joined after `seal` cost a record about 2,000
    /// instructions more: docs/performance.md, part I). `nonce` is for test vectors only.
    public static func sealCombined(
        _ plaintext: UnsafeRawBufferPointer, key: SecretBytes, authenticating aad: [UInt8], nonce: [UInt8]? = nil
    ) throws -> [UInt8] {
        let nonce = try nonce ?? NoncePool.bytes(nonceSize)
        try check(key: key, nonceCount: nonce.count)  // before the buffer is laid out for a nonce of that size
        let count = nonceSize + plaintext.count + tagSize
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            out.copyBytes(from: nonce)
            out[nonceSize..<count].initializeMemory(as: UInt8.self, repeating: 0)
            try seal(plaintext, key: key, authenticating: aad, nonce: nonce,
                     ciphertext: UnsafeMutableRawBufferPointer(rebasing: out[nonceSize..<(count - tagSize)]),
                     tag: UnsafeMutableRawBufferPointer(rebasing: out[(count - tagSize)...]))
            initialized = count
        }
    }

    /// The seal itself, into the caller's buffers: `ciphertext` of the plaintext's size, `tag` of 16 bytes.
    private static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecretBytes, authenticating aad: [UInt8], nonce: [UInt8],
        ciphertext: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) throws {
        try check(key: key, nonceCount: nonce.count)
        precondition(ciphertext.count == plaintext.count && tag.count == tagSize)
        let context = try Context.current()
        defer { context.scrub() }
        try context.begin(encrypt: true, key: key, nonce: nonce)
        try context.addAAD(aad)
        if plaintext.count > 0 { try context.update(input: plaintext, output: ciphertext) }
        try context.finish()
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), tag.baseAddress) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_CTRL_GCM_GET_TAG")
        }
    }

    public static func seal(_ plaintext: SecretBytes, key: SecretBytes, authenticating aad: [UInt8]) throws -> SealedBox {
        try plaintext.withUnsafeBytes { (buffer) in try seal(buffer, key: key, authenticating: aad) }
    }

    public static func seal(_ plaintext: [UInt8], key: SecretBytes, authenticating aad: [UInt8], nonce: [UInt8]? = nil) throws -> SealedBox {
        try plaintext.withUnsafeBytes { (buffer) in try seal(buffer, key: key, authenticating: aad, nonce: nonce) }
    }

    /// Decrypts and verifies; the plaintext comes back as wiped-on-release bytes.
    /// Fails with `.authenticationFailed` when the key, nonce, AAD, ciphertext or tag is wrong.
    public static func open(_ box: SealedBox, key: SecretBytes, authenticating aad: [UInt8]) throws -> SecretBytes {
        try box.nonce.withUnsafeBytes { nonce in
            try box.ciphertext.withUnsafeBytes { ciphertext in
                try box.tag.withUnsafeBytes { tag in try open(nonce: nonce, ciphertext: ciphertext, tag: tag, key: key, authenticating: aad) }
            }
        }
    }

    /// `open` of a box whose parts lie in the caller's buffers (a record kept as the file holds
    /// it, without an array per part).
    public static func open(
        nonce: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, key: SecretBytes, authenticating aad: [UInt8]
    ) throws -> SecretBytes {
        try check(key: key, nonceCount: nonce.count)
        guard tag.count == tagSize else { throw CryptoError.invalidParameters("GCM tag must be \(tagSize) bytes") }
        let context = try Context.current()
        defer { context.scrub() }
        try context.begin(encrypt: false, key: key, nonce: nonce)
        try context.addAAD(aad)
        return try SecretBytes(count: ciphertext.count) { (out) in
            if ciphertext.count > 0 { try context.update(input: ciphertext, output: out) }
            // OpenSSL's SET_TAG takes a mutable pointer but only reads the tag.
            let ok = EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), UnsafeMutableRawPointer(mutating: tag.baseAddress))
            guard ok == 1 else { throw CryptoError.fromOpenSSL("EVP_CTRL_GCM_SET_TAG") }
            do {
                try context.finish()
            } catch {
                // The buffer may hold unauthenticated plaintext; SecretBytes wipes it on release.
                ERR_clear_error()
                throw CryptoError.authenticationFailed
            }
        }
    }

    /// The provider's AES-256-GCM, fetched once: with OpenSSL 3, passing `EVP_aes_256_gcm()` to
    /// every init makes OpenSSL look the implementation up again each time.
    nonisolated(unsafe) private static let cipher: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) ?? EVP_aes_256_gcm()

    private static func check(key: SecretBytes, nonceCount: Int) throws {
        guard key.count == keySize else { throw CryptoError.invalidParameters("AES-256 key must be \(keySize) bytes") }
        guard nonceCount == nonceSize else { throw CryptoError.invalidParameters("GCM nonce must be \(nonceSize) bytes") }
    }

    /// Each thread's own EVP_CIPHER_CTX, set up for AES-256-GCM once and given the key, nonce
    /// and direction by each seal or open (setting a context up costs more than the seal of a
    /// short secret); freed, which wipes it, when the thread exits.
    private static let threadContext: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key) { EVP_CIPHER_CTX_free(OpaquePointer($0)) } == 0, "pthread_key_create failed")
        return key
    }()

    /// Overwrites the context's key schedule after each use, so no key outlives its call there.
    private static let zeroKey = [UInt8](repeating: 0, count: keySize)

    /// This thread's context (`threadContext`), used by one seal or open at a time.
    private struct Context {
        let pointer: OpaquePointer

        static func current() throws -> Context {
            if let existing = pthread_getspecific(AESGCM.threadContext) { return Context(pointer: OpaquePointer(existing)) }
            guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_new") }
            guard EVP_CipherInit_ex(pointer, AESGCM.cipher, nil, nil, nil, 1) == 1,
                  pthread_setspecific(AESGCM.threadContext, UnsafeRawPointer(pointer)) == 0 else {
                EVP_CIPHER_CTX_free(pointer)
                throw CryptoError.fromOpenSSL("EVP_CipherInit_ex")
            }
            return Context(pointer: pointer)
        }

        /// Sets the key, the nonce and the direction, and starts a new message.
        func begin(encrypt: Bool, key: SecretBytes, nonce: [UInt8]) throws {
            try nonce.withUnsafeBytes { try begin(encrypt: encrypt, key: key, nonce: $0) }
        }

        func begin(encrypt: Bool, key: SecretBytes, nonce: UnsafeRawBufferPointer) throws {
            let ok = key.withUnsafeBytes { keyBuffer in
                EVP_CipherInit_ex(
                    pointer, nil, nil, keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), encrypt ? 1 : 0)
            }
            guard ok == 1 else { throw CryptoError.fromOpenSSL("EVP_CipherInit_ex") }
        }

        /// Replaces the key in the context with zeros (and its GHASH key with that of zeros).
        func scrub() {
            _ = AESGCM.zeroKey.withUnsafeBufferPointer { EVP_CipherInit_ex(pointer, nil, nil, $0.baseAddress, nil, -1) }
        }

        func addAAD(_ aad: [UInt8]) throws {
            guard !aad.isEmpty else { return }
            var outLength: Int32 = 0
            let ok = aad.withUnsafeBufferPointer {
                EVP_CipherUpdate(pointer, nil, &outLength, $0.baseAddress, Int32($0.count))
            }
            guard ok == 1 else { throw CryptoError.fromOpenSSL("EVP_CipherUpdate(AAD)") }
        }

        func update(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) throws {
            var outLength: Int32 = 0
            let ok = EVP_CipherUpdate(
                pointer, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &outLength,
                input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count))
            guard ok == 1, Int(outLength) == input.count else { throw CryptoError.fromOpenSSL("EVP_CipherUpdate") }
        }

        func finish() throws {
            var outLength: Int32 = 0
            let ok = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { EVP_CipherFinal_ex(pointer, $0.baseAddress, &outLength) }
            guard ok == 1 else { throw CryptoError.fromOpenSSL("EVP_CipherFinal_ex") }
        }
    }
}
