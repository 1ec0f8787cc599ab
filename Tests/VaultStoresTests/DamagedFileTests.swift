import Foundation
import Testing
import VaultCore
import VaultCrypto
@testable import VaultStores

/// Every kind of damage gets its own error, and the file is never rewritten.
@Suite struct DamagedFileTests {
    /// A small vault with one item, and its bytes: an empty snapshot and one journal entry, or
    /// (`compacted`) a snapshot holding the item and no journal.
    static func smallVault(_ directory: TemporaryDirectory, compacted: Bool = false, name: String = "vault.db") throws -> (String, [UInt8]) {
        let path = directory.file(name)
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("svc", "acct"), secret: SecretBytes(utf8: "s3cret"), changes: ItemChanges(comment: "c"))
        if compacted { try store.changePassphrase(current: testPassphrase, new: testPassphrase, rekey: false) }
        return (path, readBytes(path))
    }

    static func openError(_ path: String) -> VaultError? {
        do {
            let store = fastStore(path)
            try store.unlock(passphrase: testPassphrase)
            _ = try store.list(service: nil)
            return nil
        } catch {
            return error as? VaultError
        }
    }

    @Test(arguments: [false, true])
    func flippingAnyByteIsDetectedAndNeverOverwritten(compacted: Bool) throws {
        let directory = TemporaryDirectory()
        let (path, original) = try Self.smallVault(directory, compacted: compacted)
        for index in original.indices {
            var damaged = original
            damaged[index] ^= 0x01
            writeBytes(damaged, to: path)
            let error = Self.openError(path)
            #expect(error != nil, "flip at byte \(index) went unnoticed")
            if let error {
                // Integrity errors only: never "wrong passphrase", never a success.
                #expect([.corruptVault, .unsupportedVersion].contains(error.code), "byte \(index): \(error)")
            }
            #expect(readBytes(path) == damaged, "byte \(index): the damaged file was rewritten")
        }
    }

    /// An attacker who also recomputes the checksum still fails: inside the key block the key wrap
    /// no longer opens (indistinguishable from a wrong passphrase, by design); past it, the file MAC
    /// under the data key fails before any record is parsed. (Journal entries: JournalTests.)
    @Test func flipsWithARecomputedChecksumFailAuthentication() throws {
        let directory = TemporaryDirectory()
        let (path, original) = try Self.smallVault(directory, compacted: true)
        let dataKey = try VaultFile.decodeEnvelope(original, path: path).keyBlock.unwrap(passphrase: testPassphrase)
        let checksumStart = original.count - SHA256.digestSize
        for index in VaultFileFormat.magic.count + 2..<checksumStart {
            var damaged = original
            damaged[index] ^= 0x80
            damaged.replaceSubrange(checksumStart..., with: try SHA256.hash(Array(damaged[..<checksumStart])))
            if index < VaultFileFormat.keyBlockSize {
                writeBytes(damaged, to: path)
                let error = Self.openError(path)
                #expect([.wrongPassphrase, .corruptVault, .unsupportedVersion].contains(error?.code), "byte \(index): \(String(describing: error))")
                if case .tamperedVault = error { Issue.record("byte \(index): a key block flip cannot reach the MAC") }
            } else {
                // Same checks as opening, with the data key already known (no scrypt per byte).
                #expect(throws: (any Error).self, "byte \(index)") {
                    _ = try VaultFile.open(damaged, path: path) { _ in dataKey }
                }
                do {
                    _ = try VaultFile.open(damaged, path: path) { _ in dataKey }
                } catch VaultError.tamperedVault {
                } catch VaultError.corruptVault(_, let detail)
                    where index < VaultFileFormat.headerSize && ["length", "truncated", "checksum"].contains(where: detail.contains) {
                    // The records-length field says where the snapshot's checksum is, before the MAC.
                } catch {
                    Issue.record("byte \(index): expected an authentication failure, got \(error)")
                }
            }
        }
    }

    /// Inside the snapshot; a journal cut short is a torn last entry (JournalTests).
    @Test func truncationAtAnyLengthIsReportedAsDamage() throws {
        let directory = TemporaryDirectory()
        let (path, original) = try Self.smallVault(directory, compacted: true)
        for length in [0, 1, 7, 9, 100, VaultFileFormat.headerSize, original.count - 33, original.count - 1] {
            writeBytes(Array(original[..<length]), to: path)
            let error = Self.openError(path)
            #expect(error?.code == .corruptVault, "length \(length): \(String(describing: error))")
            #expect("\(error!)".contains("truncated") || "\(error!)".contains("empty"), "length \(length): \(error!)")
            #expect(readBytes(path).count == length)
        }
    }

    /// The records-length field says where the snapshot ends: a value that would wrap the sum
    /// of the header, the records and the trailer (to 0, to the file's own size), or overflow a
    /// signed size, is damage like any other, never a crash of the process that reads it (vaultd
    /// reads the header to count items before any unlock).
    @Test func hostileRecordsLengthsAreDamageNotACrash() throws {
        let directory = TemporaryDirectory()
        let (path, original) = try Self.smallVault(directory)
        let frame = UInt64(VaultFileFormat.headerSize + VaultFileFormat.trailerSize)
        let hostile: [UInt64] = [
            UInt64.max, 0 &- frame, 0 &- frame &+ UInt64(original.count), 0 &- frame &+ 1,
            UInt64(Int64.max), UInt64(Int64.max) - 100, 1 << 63, UInt64(original.count),
        ]
        for length in hostile {
            var damaged = original
            for index in 0..<8 { damaged[VaultFileFormat.keyBlockSize + 4 + index] = UInt8(truncatingIfNeeded: length >> (56 - 8 * index)) }
            writeBytes(damaged, to: path)
            #expect(throws: VaultError.self, "length \(length)") { try VaultFile.decodeEnvelope(damaged, path: path) }
            #expect(Self.openError(path)?.code == .corruptVault, "length \(length)")
            _ = fastStore(path).headerItemCount  // answers, whatever it says
            #expect(readBytes(path) == damaged)
        }
    }

    @Test func aNewerFormatVersionIsNamed() throws {
        let directory = TemporaryDirectory()
        let (path, original) = try Self.smallVault(directory)
        var newer = original
        newer[9] = 3
        writeBytes(newer, to: path)
        #expect(Self.openError(path) == .unsupportedVersion(path: path, found: 3, supported: 2))
        #expect(readBytes(path) == newer)
    }

    @Test func aFileThatIsNotAVaultIsLeftAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let text = Array("just some notes, not a vault\n".utf8)
        writeBytes(text, to: path)
        #expect(Self.openError(path) == .notAVault(path: path))
        #expect(readBytes(path) == text)
    }

    @Test func recordsSwappedFromAnotherVaultFailAuthentication() throws {
        // Same passphrase, different vault: the item ciphertexts are bound to their vault id.
        let directory = TemporaryDirectory()
        let (path, original) = try Self.smallVault(directory, compacted: true)
        let (_, otherBytes) = try Self.smallVault(directory, compacted: true, name: "other.db")
        // Splice the other vault's records after this vault's key block, then fix the checksum.
        var spliced = Array(original[..<VaultFileFormat.keyBlockSize]) + Array(otherBytes[VaultFileFormat.keyBlockSize...])
        let checksumStart = spliced.count - SHA256.digestSize
        spliced.replaceSubrange(checksumStart..., with: try SHA256.hash(Array(spliced[..<checksumStart])))
        writeBytes(spliced, to: path)
        #expect(Self.openError(path)?.code == .corruptVault)
        if case .tamperedVault = Self.openError(path) {} else { Issue.record("expected an authentication failure") }
    }

    @Test func aVaultDamagedWhileOpenStopsWritesInsteadOfOverwriting() throws {
        let directory = TemporaryDirectory()
        let (path, _) = try Self.smallVault(directory)
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        var damaged = readBytes(path)
        damaged[damaged.count / 2] ^= 0xff
        writeBytes(damaged, to: path)
        #expect(throws: VaultError.self) { try store.set(key("new", "item"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) }
        #expect(readBytes(path) == damaged)
    }
}
