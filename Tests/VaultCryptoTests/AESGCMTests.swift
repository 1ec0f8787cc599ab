import Dispatch
import Testing
import VaultCore
import VaultCrypto

/// AES-256-GCM against the test cases 13 to 16 of the GCM specification (McGrew and Viega),
/// which NIST's GCM validation vectors include.
@Suite struct AESGCMTests {
    struct Vector: Sendable, CustomStringConvertible {
        let name, key, nonce, plaintext, aad, ciphertext, tag: String
        var description: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "case 13", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            plaintext: "", aad: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(
            name: "case 14", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            plaintext: String(repeating: "00", count: 16), aad: "",
            ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(
            name: "case 15", key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
            nonce: "cafebabefacedbaddecaf888",
            plaintext: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
            aad: "",
            ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
            tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(
            name: "case 16", key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
            nonce: "cafebabefacedbaddecaf888",
            plaintext: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
            aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
            tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors)
    func sealMatchesPublishedVector(_ vector: Vector) throws {
        let key = SecretBytes(hex(vector.key))
        let box = try AESGCM.seal(hex(vector.plaintext), key: key, authenticating: hex(vector.aad), nonce: hex(vector.nonce))
        #expect(hexString(box.ciphertext) == vector.ciphertext)
        #expect(hexString(box.tag) == vector.tag)
    }

    /// audit.log's form: nonce ‖ ciphertext ‖ tag in one buffer, the published vector's bytes.
    @Test(arguments: vectors)
    func sealCombinedMatchesPublishedVector(_ vector: Vector) throws {
        let key = SecretBytes(hex(vector.key))
        let sealed = try hex(vector.plaintext).withUnsafeBytes {
            try AESGCM.sealCombined($0, key: key, authenticating: hex(vector.aad), nonce: hex(vector.nonce))
        }
        #expect(hexString(sealed) == vector.nonce + vector.ciphertext + vector.tag)
    }

    @Test func sealCombinedRefusesABadKeyOrNonceAndOpensWithAFreshOne() throws {
        let key = try SecureRandom.secretBytes(32)
        let plain = Array("attack at dawn".utf8)
        #expect(throws: CryptoError.self) { try plain.withUnsafeBytes { try AESGCM.sealCombined($0, key: key, authenticating: [], nonce: [1, 2, 3]) } }
        #expect(throws: CryptoError.self) { try plain.withUnsafeBytes { try AESGCM.sealCombined($0, key: SecretBytes([1, 2]), authenticating: []) } }
        let first = try plain.withUnsafeBytes { try AESGCM.sealCombined($0, key: key, authenticating: [7]) }
        let second = try plain.withUnsafeBytes { try AESGCM.sealCombined($0, key: key, authenticating: [7]) }
        #expect(first.prefix(AESGCM.nonceSize) != second.prefix(AESGCM.nonceSize), "a fresh nonce each time")
        let box = AESGCM.SealedBox(nonce: Array(first.prefix(12)), ciphertext: Array(first.dropFirst(12).dropLast(16)), tag: Array(first.suffix(16)))
        #expect(try AESGCM.open(box, key: key, authenticating: [7]).unprotectedBytes == plain)
        let empty = try [UInt8]().withUnsafeBytes { try AESGCM.sealCombined($0, key: key, authenticating: []) }
        #expect(empty.count == AESGCM.nonceSize + AESGCM.tagSize)
    }

    @Test(arguments: vectors)
    func openRecoversPublishedPlaintext(_ vector: Vector) throws {
        let box = AESGCM.SealedBox(nonce: hex(vector.nonce), ciphertext: hex(vector.ciphertext), tag: hex(vector.tag))
        let plain = try AESGCM.open(box, key: SecretBytes(hex(vector.key)), authenticating: hex(vector.aad))
        #expect(hexString(plain.unprotectedBytes) == vector.plaintext)
    }

    @Test func anyAlterationFailsAuthentication() throws {
        let key = try SecureRandom.secretBytes(32)
        let aad = Array("context".utf8)
        let box = try AESGCM.seal(Array("attack at dawn".utf8), key: key, authenticating: aad)
        var flippedCiphertext = box
        flippedCiphertext.ciphertext[0] ^= 1
        var flippedTag = box
        flippedTag.tag[15] ^= 0x80
        var flippedNonce = box
        flippedNonce.nonce[11] ^= 1
        for altered in [flippedCiphertext, flippedTag, flippedNonce] {
            #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(altered, key: key, authenticating: aad) }
        }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: key, authenticating: Array("other".utf8)) }
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(box, key: try SecureRandom.secretBytes(32), authenticating: aad)
        }
        #expect(try AESGCM.open(box, key: key, authenticating: aad).utf8String == "attack at dawn")
    }

    @Test func everySealUsesAFreshNonce() throws {
        let key = try SecureRandom.secretBytes(32)
        let nonces = try (0..<200).map { _ in try AESGCM.seal([1, 2, 3], key: key, authenticating: []).nonce }
        #expect(Set(nonces).count == nonces.count)
        #expect(nonces.allSatisfy { $0.count == 12 })
    }

    @Test func wrongSizesAreRejectedNotTruncated() {
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], key: SecretBytes([1, 2, 3]), authenticating: []) }
        #expect(throws: CryptoError.self) {
            try AESGCM.seal([1], key: SecretBytes([UInt8](repeating: 0, count: 32)), authenticating: [], nonce: [0, 1])
        }
    }

    /// Each thread keeps one cipher context and gives it the key of each call: seals and opens
    /// under the four vectors' keys in turn, in both directions, with failed opens (wrong key,
    /// altered tag) in between, each still give the published bytes.
    @Test func oneThreadInterleavingKeysAndDirectionsGetsThePublishedBytes() throws {
        for round in 0..<40 {
            let vector = Self.vectors[round % 4], next = Self.vectors[(round + 1) % 4]
            try Self.check(vector)
            let box = AESGCM.SealedBox(nonce: hex(vector.nonce), ciphertext: hex(vector.ciphertext), tag: hex(vector.tag))
            if vector.key != next.key {
                #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(box, key: SecretBytes(hex(next.key)), authenticating: hex(vector.aad)) }
            }
            var altered = box
            altered.tag[0] ^= 1
            #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(altered, key: SecretBytes(hex(vector.key)), authenticating: hex(vector.aad)) }
            try Self.check(next)
        }
    }

    /// A key given to one thread's context never serves another's: 8 threads, each with its own
    /// random key, seal and open side by side (and the vectors' keys in between); each opens
    /// its own boxes only, and none opens a box sealed under another thread's key.
    @Test func threadsSideBySideNeverUseEachOthersKeys() throws {
        let keys = try (0..<8).map { _ in try SecureRandom.secretBytes(32) }
        let boxes = try keys.map { try AESGCM.seal(Array("sealed under my key".utf8), key: $0, authenticating: []) }
        let failures = DispatchQueue(label: "failures")
        nonisolated(unsafe) var problems: [String] = []
        DispatchQueue.concurrentPerform(iterations: keys.count) { thread in
            func fail(_ what: String) { failures.sync { problems.append("thread \(thread): \(what)") } }
            let key = keys[thread], other = boxes[(thread + 1) % boxes.count]
            for round in 0..<300 {
                do {
                    let message = Array("thread \(thread) round \(round)".utf8)
                    let box = try AESGCM.seal(message, key: key, authenticating: [UInt8(thread)])
                    guard try AESGCM.open(box, key: key, authenticating: [UInt8(thread)]).unprotectedBytes == message else { return fail("round trip") }
                    guard try AESGCM.open(boxes[thread], key: key, authenticating: []).utf8String == "sealed under my key" else { return fail("own box") }
                    if (try? AESGCM.open(other, key: key, authenticating: [])) != nil { return fail("opened another thread's box") }
                    if round % 50 == 0 { try Self.check(Self.vectors[(thread + round) % 4]) }
                } catch {
                    return fail("\(error)")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    /// Seals and opens `vector` and throws unless both give its published bytes.
    static func check(_ vector: Vector) throws {
        let key = SecretBytes(hex(vector.key))
        let box = try AESGCM.seal(hex(vector.plaintext), key: key, authenticating: hex(vector.aad), nonce: hex(vector.nonce))
        guard hexString(box.ciphertext) == vector.ciphertext, hexString(box.tag) == vector.tag else {
            throw CryptoError.invalidParameters("\(vector) sealed to other bytes")
        }
        let opened = try AESGCM.open(
            AESGCM.SealedBox(nonce: hex(vector.nonce), ciphertext: hex(vector.ciphertext), tag: hex(vector.tag)), key: key,
            authenticating: hex(vector.aad))
        guard hexString(opened.unprotectedBytes) == vector.plaintext else { throw CryptoError.invalidParameters("\(vector) opened to other bytes") }
    }
}
