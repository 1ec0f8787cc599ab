import Foundation
import Testing
import VaultCore
import VaultCrypto
@testable import VaultStores
import VaultSystem

/// The journal (docs/file-format.md, "Journal entries"): a write appends one entry; a torn last
/// entry is the earlier state and the next write cuts it; any other damage, and any entry removed
/// from the middle, reordered, duplicated, replayed or moved, is an error that changes nothing.
@Suite struct JournalTests {
    static func dataKey(_ bytes: [UInt8]) throws -> SecretBytes {
        try VaultFile.decodeEnvelope(bytes, path: "vault").keyBlock.unwrap(passphrase: testPassphrase)
    }

    /// Decodes a whole file as a store opening it would (snapshot, then journal), key given.
    static func decode(_ bytes: [UInt8], key: SecretBytes) throws -> OpenVault {
        try OpenVault.decode(bytes, identity: nil, path: "vault") { _ in key }
    }

    static func secret(_ vault: OpenVault, _ itemKey: ItemKey) throws -> String? {
        guard let entry = vault.table[itemKey] else { return nil }
        return String(decoding: try entry.payload.openSecret(vaultID: vault.keyBlock.vaultID, key: vault.dataKey).unprotectedBytes, as: UTF8.self)
    }

    /// Where the snapshot ends and each journal entry starts and ends.
    static func entries(_ bytes: [UInt8]) throws -> (snapshot: [UInt8], entries: [[UInt8]]) {
        let snapshotSize = try VaultFile.decodeEnvelope(bytes, path: "vault").snapshotSize
        var entries: [[UInt8]] = [], offset = snapshotSize
        while offset < bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let size = VaultJournal.headerSize + length + VaultJournal.trailerSize
            entries.append(Array(bytes[offset..<offset + size]))
            offset += size
        }
        return (Array(bytes[..<snapshotSize]), entries)
    }

    /// A journal entry exactly as the format lays one out, around any body: what a writer holding
    /// the key could append that vault never writes.
    static func sealedEntry(body: [UInt8], after previousTag: [UInt8], key: SecretBytes, length: UInt32? = nil) throws -> [UInt8] {
        var writer = ByteWriter()
        let claimed = length ?? UInt32(body.count)
        writer.append(claimed)
        writer.append(~claimed)
        writer.append(raw: body)
        let mac = try AESGCM.seal([], key: key, authenticating: Array("vault/v2/entry".utf8) + previousTag + writer.bytes)
        writer.append(raw: mac.nonce)
        writer.append(raw: mac.tag)
        writer.append(raw: try SHA256.hash(writer.bytes))
        return writer.bytes
    }

    static func tag(of entry: [UInt8]) -> [UInt8] {
        Array(entry[(entry.count - 48)..<(entry.count - 32)])
    }

    @Test func aTornLastEntryAtEveryLengthIsTheEarlierStateAndTheNextWriteCutsIt() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        try store.set(key("s", "a"), secret: SecretBytes(utf8: "1"), changes: ItemChanges())
        try store.set(key("s", "b"), secret: SecretBytes(utf8: "b"), changes: ItemChanges())
        let beforeUpsert = readBytes(path)
        try store.set(key("s", "a"), secret: SecretBytes(utf8: "2"), changes: ItemChanges(attributes: ["x": "y"]))
        let beforeDeletion = readBytes(path)
        try store.delete(key("s", "b"))
        let full = readBytes(path)
        let dataKey = try Self.dataKey(full)

        // Every length of the upsert, then of the deletion, short of complete: the state before it.
        for length in beforeUpsert.count..<full.count where length != beforeDeletion.count {
            let vault = try Self.decode(Array(full[..<length]), key: dataKey)
            let upserted = length > beforeDeletion.count
            #expect(try Self.secret(vault, key("s", "a")) == (upserted ? "2" : "1"), "length \(length)")
            #expect(try Self.secret(vault, key("s", "b")) == "b", "length \(length)")
            #expect(vault.journal?.position.end == (upserted ? beforeDeletion.count : beforeUpsert.count), "length \(length)")
        }

        // Through a store: opening a torn file changes nothing; the next write cuts the torn bytes
        // first, then appends, and everything reads back (the independent decryptor too).
        let torn = Array(full[..<(beforeDeletion.count + 9)])
        writeBytes(torn, to: path)
        let reopened = fastStore(path)
        try reopened.unlock(passphrase: testPassphrase)
        #expect(try reopened.get(key("s", "b")).secret == SecretBytes(utf8: "b"))
        #expect(readBytes(path) == torn)
        #expect(try FileFormatUpgradeTests.decrypt(path, directory).keys.sorted() == ["s/a", "s/b"])
        try reopened.set(key("s", "c"), secret: SecretBytes(utf8: "c"), changes: ItemChanges())
        let after = readBytes(path)
        #expect(Array(after[..<beforeDeletion.count]) == beforeDeletion)
        let (_, entries) = try Self.entries(after)
        #expect(entries.count == 4, "the torn bytes were cut before the new entry")
        let vault = try Self.decode(after, key: dataKey)
        #expect(try Self.secret(vault, key("s", "b")) == "b" && Self.secret(vault, key("s", "c")) == "c")
        #expect(vault.table[key("s", "a")]?.info.attributes == ["x": "y"])
        #expect(try FileFormatUpgradeTests.decrypt(path, directory).keys.sorted() == ["s/a", "s/b", "s/c"])
        // The first store, which saw the file before it was cut, catches up too.
        #expect(try store.list(service: "s").map(\.key.account) == ["a", "b", "c"])
    }

    @Test func aFlippedBitInAnyJournalEntryIsAnErrorAndTheFileIsUntouched() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        try store.set(key("s", "a"), secret: SecretBytes(utf8: "1"), changes: ItemChanges(label: "l", comment: "c"))
        try store.set(key("s", "b"), secret: SecretBytes(utf8: "2"), changes: ItemChanges())
        try store.delete(key("s", "a"))
        let full = readBytes(path)
        let dataKey = try Self.dataKey(full)
        let (snapshot, entries) = try Self.entries(full)
        #expect(entries.count == 3)

        var entryStart = snapshot.count
        for entry in entries {
            for offset in entry.indices {
                let index = entryStart + offset
                var damaged = full
                damaged[index] ^= 0x01
                #expect(performing: { _ = try Self.decode(damaged, key: dataKey) }, throws: { ($0 as? VaultError)?.code == .corruptVault })
                // An attacker who recomputes the entry's checksum: the entry's tag fails (a flip in
                // the length fields is caught by the length check first).
                let checksumStart = entryStart + entry.count - SHA256.digestSize
                guard offset >= VaultJournal.headerSize, index < checksumStart else { continue }
                damaged.replaceSubrange(checksumStart..<(checksumStart + SHA256.digestSize), with: try SHA256.hash(Array(damaged[entryStart..<checksumStart])))
                do {
                    _ = try Self.decode(damaged, key: dataKey)
                    Issue.record("byte \(index) with a recomputed checksum went unnoticed")
                } catch VaultError.tamperedVault {
                } catch {
                    Issue.record("byte \(index): expected an authentication failure, got \(error)")
                }
            }
            entryStart += entry.count
        }

        // Through stores: the damaged file does not open, a store that had it open refuses to
        // write, and nothing rewrites the file.
        var damaged = full
        damaged[snapshot.count + entries[0].count + 20] ^= 0x80
        writeBytes(damaged, to: path)
        #expect(DamagedFileTests.openError(path)?.code == .corruptVault)
        #expect(throws: VaultError.self) { try store.set(key("s", "new"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) }
        #expect(throws: VaultError.self) { try store.list(service: nil) }
        #expect(readBytes(path) == damaged)
    }

    @Test func entriesSwappedDuplicatedDroppedReplayedOrMovedAreErrors() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        for (account, value) in [("a", "1"), ("b", "2"), ("a", "3")] {
            try store.set(key("s", account), secret: SecretBytes(utf8: value), changes: ItemChanges())
        }
        let full = readBytes(path)
        let dataKey = try Self.dataKey(full)
        let (snapshot, e) = try Self.entries(full)
        // Another snapshot of the same vault (a compaction: same key, new snapshot MAC).
        let other = fastStore(directory.file("other.db"))
        writeBytes(snapshot, to: directory.file("other.db"))
        try other.unlock(passphrase: testPassphrase)
        try other.changePassphrase(current: testPassphrase, new: testPassphrase, rekey: false)
        let otherSnapshot = readBytes(directory.file("other.db"))

        let attacks: [(String, [UInt8])] = [
            ("swapped", snapshot + e[1] + e[0] + e[2]),
            ("first two swapped at the end", snapshot + e[0] + e[2] + e[1]),
            ("duplicated", snapshot + e[0] + e[0] + e[1] + e[2]),
            ("middle dropped", snapshot + e[0] + e[2]),
            ("first dropped", snapshot + e[1] + e[2]),
            ("last replayed", snapshot + e[0] + e[1] + e[2] + e[2]),
            ("moved to another snapshot", otherSnapshot + e[0]),
        ]
        for (what, bytes) in attacks {
            do {
                _ = try Self.decode(bytes, key: dataKey)
                Issue.record("\(what) went unnoticed")
            } catch VaultError.tamperedVault {
            } catch {
                Issue.record("\(what): expected an authentication failure, got \(error)")
            }
        }
        // Through a store and the independent decryptor.
        writeBytes(attacks[0].1, to: path)
        #expect(DamagedFileTests.openError(path)?.code == .corruptVault)
        let refused = try runDecryptor([path, passphraseFile(in: directory)])
        #expect(refused.status == 1 && refused.stderr.contains("does not verify"), "\(refused.stderr)")
        // The one cut that cannot be told from an older file (docs/file-format.md, security notes):
        // exactly at an entry boundary.
        let older = try Self.decode(snapshot + e[0] + e[1], key: dataKey)
        #expect(try Self.secret(older, key("s", "a")) == "1")
    }

    /// Entries a writer holding the key could seal but vault never writes.
    @Test func hostileEntriesWithValidTagsAreDamage() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        try store.set(key("s", "a"), secret: SecretBytes(utf8: "1"), changes: ItemChanges())
        try store.set(key("s", "b"), secret: SecretBytes(utf8: "2"), changes: ItemChanges())
        let full = readBytes(path)
        let dataKey = try Self.dataKey(full)
        let (_, entries) = try Self.entries(full)
        let vault = try Self.decode(full, key: dataKey)
        let lastTag = Self.tag(of: entries[1])
        let idA = vault.table[key("s", "a")]!.payload.itemID, idB = vault.table[key("s", "b")]!.payload.itemID
        let vaultID = vault.keyBlock.vaultID

        func upsertBody(_ record: SealedRecord, trailing: [UInt8] = []) -> [UInt8] {
            var writer = ByteWriter()
            writer.append(UInt8(1))
            VaultFile.appendRecord(record, to: &writer)
            return writer.bytes + trailing
        }
        let info = ItemInfo(key: key("s", "b"), label: "", comment: "", kind: .secret, created: 1, modified: 1)
        let newID = try SecureRandom.bytes(16)
        let sameNameNewID = try SealedRecord.seal(info: info, secret: SecretBytes(utf8: "x"), itemID: newID, vaultID: vaultID, key: dataKey)
        var wrongContext = sameNameNewID
        wrongContext.itemID = idA  // its metadata is bound to another item id
        let valid = try SealedRecord.seal(info: info, secret: SecretBytes(utf8: "x"), itemID: idB, vaultID: vaultID, key: dataKey)

        let hostile: [(String, [UInt8], Bool)] = [
            ("empty body", try Self.sealedEntry(body: [], after: lastTag, key: dataKey), false),
            ("unknown type", try Self.sealedEntry(body: [3] + idA, after: lastTag, key: dataKey), false),
            ("short deletion", try Self.sealedEntry(body: [2] + idA.dropLast(), after: lastTag, key: dataKey), false),
            ("deletion with trailing bytes", try Self.sealedEntry(body: [2] + idA + [0], after: lastTag, key: dataKey), false),
            ("deletion of an unknown item", try Self.sealedEntry(body: [2] + newID, after: lastTag, key: dataKey), false),
            ("upsert with trailing bytes", try Self.sealedEntry(body: upsertBody(valid, trailing: [0]), after: lastTag, key: dataKey), false),
            ("a second item of the same name", try Self.sealedEntry(body: upsertBody(sameNameNewID), after: lastTag, key: dataKey), false),
            ("metadata of another item", try Self.sealedEntry(body: upsertBody(wrongContext), after: lastTag, key: dataKey), true),
            ("huge length", try Self.sealedEntry(body: [2] + idA, after: lastTag, key: dataKey, length: UInt32(VaultJournal.maxBodySize + 1)), false),
        ]
        for (what, entry, tampered) in hostile {
            do {
                _ = try Self.decode(full + entry, key: dataKey)
                Issue.record("\(what) was accepted")
            } catch VaultError.corruptVault where !tampered {
            } catch VaultError.tamperedVault where tampered {
            } catch {
                Issue.record("\(what): \(error)")
            }
        }
        // The well-formed one is accepted: the checks above are about the body, not the sealing.
        let accepted = try Self.decode(full + Self.sealedEntry(body: upsertBody(valid), after: lastTag, key: dataKey), key: dataKey)
        #expect(try Self.secret(accepted, key("s", "b")) == "x")
    }

    /// The point of the journal: a write to a large vault appends one entry to the same file.
    @Test func aWriteToALargeVaultAppendsOneEntry() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        try store.add((0..<2_000).map { (key: key("bulk", "item-\($0)"), secret: SecretBytes(utf8: "s\($0)"), changes: ItemChanges()) })
        let before = try #require(try FileStatus.of(path))
        try store.set(key("bulk", "item-7"), secret: SecretBytes(utf8: "changed"), changes: ItemChanges())
        try store.delete(key("bulk", "item-8"))
        let after = try #require(try FileStatus.of(path))
        #expect(after.inode == before.inode)
        #expect(after.size - before.size < 1_024)
        #expect(store.headerItemCount == 1_999)
        let reopened = fastStore(path)
        try reopened.unlock(passphrase: testPassphrase)
        #expect(try reopened.get(key("bulk", "item-7")).secret == SecretBytes(utf8: "changed"))
        #expect(reopened.status().itemCount == 1_999)
    }
}
