import Foundation
import Testing
import VaultCore
import VaultCrypto
@testable import VaultStores
import VaultSystem

/// Journals shared between stores: each sees the other's writes, a stale view is read again
/// before a write chains to it, and an entry cut and replaced is noticed.
extension JournalTests {
    /// Two stores on one file (as two processes), compacting often: each sees every write of the
    /// other, through appends, deletions, compactions and passphrase re-wraps; both where the
    /// directory is watched (inotify: a compaction's new file must be watched anew, or its later
    /// appends go unseen) and where it cannot be (a network filesystem: a `stat` per read).
    @Test(arguments: [true, false]) func twoStoresSharingAFileSeeEachOthersWrites(watched: Bool) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let options = EncryptedFileStore.Options(kdfParameters: .minimum, lockTimeout: 30, compactionFloor: 0)
        let stores = (0..<2).map { _ in EncryptedFileStore(path: path, options: options, isLocalFileSystem: { _ in watched }) }
        for store in stores { try store.unlock(passphrase: testPassphrase) }
        var model: [String: String] = [:]
        // Compactions seen: the inode changed from one step to the next (counting distinct inode
        // numbers would not do: a file system reuses a freed file's number for the next temp file).
        var compactions = 0
        var inode = try #require(try FileStatus.of(path)).inode
        var generator = SystemRandomNumberGenerator()
        for step in 0..<300 {
            let writer = stores[step % 3 == 0 ? 1 : 0], reader = stores[step % 3 == 0 ? 0 : 1]
            let account = "item-\(Int.random(in: 0..<12, using: &generator))"
            if model[account] != nil && Bool.random(using: &generator) {
                try writer.delete(key("s", account))
                model[account] = nil
            } else if step % 97 == 96 {
                try writer.changePassphrase(current: testPassphrase, new: testPassphrase, rekey: false)
            } else {
                try writer.set(key("s", account), secret: SecretBytes(utf8: "v\(step)"), changes: ItemChanges(attributes: ["step": "\(step)"]))
                model[account] = "v\(step)"
            }
            let now = try #require(try FileStatus.of(path)).inode
            if now != inode { compactions += 1 }
            inode = now
            #expect(try reader.list(service: "s").map(\.key.account).sorted() == model.keys.sorted(), "step \(step)")
            if let value = model[account] {
                #expect(try reader.get(key("s", account)).secret == SecretBytes(utf8: value), "step \(step)")
            }
        }
        // Both paths were taken: appends (the inode stayed) and compactions (it changed).
        #expect(compactions > 3 && compactions < 200, "\(compactions) compactions in 300 writes")
    }

    /// Another process rewrote the file into one `stat` cannot tell from the one this store last
    /// read (simulated: the store is told the file is unchanged). Its next write must notice that
    /// the file no longer ends with the trailer and tag it read, read the file again and append
    /// after what is there, rather than chain an entry to a tag the file no longer has (after which
    /// every reader would reject the file): both with entries in the journal and with none.
    @Test(arguments: [false, true]) func aWriteAfterAStaleViewOfTheFileReadsItAgainAndChainsCorrectly(compacting: Bool) throws {
        for compactedBeforehand in [false, true] {
            let directory = TemporaryDirectory()
            let path = directory.file("vault.db")
            let options = EncryptedFileStore.Options(kdfParameters: .minimum, lockTimeout: 30)
            let stale = EncryptedFileStore(path: path, options: options)
            try stale.unlock(passphrase: testPassphrase)
            try stale.set(key("s", "first"), secret: SecretBytes(utf8: "1"), changes: ItemChanges())
            if compactedBeforehand { try stale.changePassphrase(current: testPassphrase, new: testPassphrase, rekey: false) }
            let other = EncryptedFileStore(path: path, options: options)
            try other.unlock(passphrase: testPassphrase)
            try other.set(key("s", "other"), secret: SecretBytes(utf8: "2"), changes: ItemChanges())
            try other.changePassphrase(current: testPassphrase, new: testPassphrase, rekey: false)  // a compaction
            try other.set(key("s", "later"), secret: SecretBytes(utf8: "3"), changes: ItemChanges())

            try stale.assumeFileUnchanged()
            if compacting {
                // Two items in one write: a compaction, which writes the whole table it holds.
                try stale.add([(key("s", "mine"), SecretBytes(utf8: "4"), ItemChanges()), (key("t", "too"), SecretBytes(utf8: "5"), ItemChanges())])
            } else {
                try stale.set(key("s", "mine"), secret: SecretBytes(utf8: "4"), changes: ItemChanges())
            }

            let reader = EncryptedFileStore(path: path, options: options)
            try reader.unlock(passphrase: testPassphrase)
            #expect(try reader.list(service: "s").map(\.key.account) == ["first", "later", "mine", "other"], "compacted: \(compactedBeforehand)")
            #expect(try reader.get(key("s", "mine")).secret == SecretBytes(utf8: "4"))
            #expect(try other.get(key("s", "mine")).secret == SecretBytes(utf8: "4"))
            #expect(try stale.get(key("s", "later")).secret == SecretBytes(utf8: "3"))
        }
    }

    /// A reader that has applied an entry another writer then cut (its `fdatasync` failed, so it
    /// was never acknowledged) must not take a third writer's longer entry, written where the cut
    /// one was, for the same file grown by a torn tail: it would keep the unacknowledged item and
    /// miss the acknowledged one.
    @Test func aReaderNoticesAnEntryItReadWasCutAndReplacedByALongerOne() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let options = EncryptedFileStore.Options(kdfParameters: .minimum, lockTimeout: 30)
        let stores = (0..<3).map { _ in EncryptedFileStore(path: path, options: options) }
        let (writer, reader, third) = (stores[0], stores[1], stores[2])
        for store in stores { try store.unlock(passphrase: testPassphrase) }
        try writer.set(key("s", "base"), secret: SecretBytes(utf8: "0"), changes: ItemChanges())
        for store in stores { _ = try store.list(service: nil) }
        let before = try #require(FileStatus.of(path)?.size)
        try writer.set(key("s", "cut"), secret: SecretBytes(utf8: "1234"), changes: ItemChanges())
        let cutLength = try #require(FileStatus.of(path)?.size) - before
        #expect(try reader.list(service: "s").map(\.key.account) == ["base", "cut"])
        // The cut writer's failed sync, as its `append` undoes it.
        #expect(truncate(path, Int(before)) == 0)
        try third.set(key("s", "won"), secret: SecretBytes(utf8: "1234567"), changes: ItemChanges())
        let longer = try #require(FileStatus.of(path)?.size) - before - cutLength
        try #require((1...7).contains(longer), "the third entry is \(longer) bytes longer")
        #expect(try reader.list(service: "s").map(\.key.account) == ["base", "won"])
        #expect(try reader.get(key("s", "won")).secret == SecretBytes(utf8: "1234567"))
    }
}
