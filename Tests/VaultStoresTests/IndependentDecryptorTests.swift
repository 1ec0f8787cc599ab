import Foundation
import Testing
import VaultCore
import VaultStores

/// scripts/decrypt-vault.py was written from docs/file-format.md alone (Python's `cryptography`
/// and hashlib.scrypt, no vault code). If it reads what vault writes, the document is complete.
@Suite struct IndependentDecryptorTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theFormatDocumentIsEnoughToDecryptAVault() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("github.com", "octocat"), secret: SecretBytes([0, 1, 2, 0xff]), changes: ItemChanges(label: "GitHub", comment: "PAT"))
        try store.set(key("ünï", "☃"), secret: SecretBytes(utf8: "pässwörd"), changes: ItemChanges(kind: .session))
        try store.set(key("empty", "secret"), secret: .empty, changes: ItemChanges())

        let python = Self.packageRoot + "/.venv/bin/python"
        let result = try run([python, Self.packageRoot + "/scripts/decrypt-vault.py", path, passphraseFile(in: directory)])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]] ?? []
        let byAccount = Dictionary(uniqueKeysWithValues: items.map { ($0["account"] as? String ?? "", $0) })
        #expect(items.count == 3)
        #expect(byAccount["octocat"]?["secret_hex"] as? String == "000102ff")
        #expect(byAccount["octocat"]?["label"] as? String == "GitHub")
        #expect(byAccount["octocat"]?["comment"] as? String == "PAT")
        #expect(byAccount["☃"]?["service"] as? String == "ünï")
        #expect(byAccount["☃"]?["kind"] as? String == "session")
        #expect(byAccount["☃"]?["secret_hex"] as? String == Array("pässwörd".utf8).map { String(format: "%02x", $0) }.joined())
        #expect(byAccount["secret"]?["secret_hex"] as? String == "")
        let info = try store.get(key("github.com", "octocat")).info
        #expect(byAccount["octocat"]?["created"] as? Int64 == info.created)

        // And it agrees that a wrong passphrase is a wrong passphrase.
        let wrong = directory.file("wrong")
        writeBytes(Array("nope".utf8), to: wrong)
        let refused = try run([python, Self.packageRoot + "/scripts/decrypt-vault.py", path, wrong])
        #expect(refused.status == 1 && refused.stderr.contains("wrong passphrase"))
    }

    /// A power loss during an append can leave the file's size extended over blocks that were
    /// never written: zeros to the end. That is a torn last entry (file-format.md, reading step
    /// 8), for vault and for the decryptor written from the document; zeros followed by anything
    /// else are damage for both. The next write cuts the zeros.
    @Test func aTailOfZerosIsATornEntryForVaultAndTheDecryptor() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        try store.set(key("s", "a"), secret: SecretBytes(utf8: "1"), changes: ItemChanges())
        try store.set(key("s", "b"), secret: SecretBytes(utf8: "2"), changes: ItemChanges())
        let written = readBytes(path)
        let python = Self.packageRoot + "/.venv/bin/python", script = Self.packageRoot + "/scripts/decrypt-vault.py"
        for zeros in [8, 60, 4096] {
            writeBytes(written + [UInt8](repeating: 0, count: zeros), to: path)
            let reader = fastStore(path)
            try reader.unlock(passphrase: testPassphrase)
            #expect(try reader.list(service: "s").map(\.key.account) == ["a", "b"], "\(zeros) zeros")
            let decrypted = try run([python, script, path, passphraseFile(in: directory)])
            #expect(decrypted.status == 0, "\(zeros) zeros: \(decrypted.stderr)")
            // Anything after the zeros makes them damage.
            writeBytes(written + [UInt8](repeating: 0, count: zeros) + [1], to: path)
            #expect(DamagedFileTests.openError(path)?.code == .corruptVault, "\(zeros) zeros and a byte")
            #expect(try run([python, script, path, passphraseFile(in: directory)]).status != 0)
        }
        writeBytes(written + [UInt8](repeating: 0, count: 4096), to: path)
        let writer = fastStore(path)
        try writer.unlock(passphrase: testPassphrase)
        try writer.set(key("s", "c"), secret: SecretBytes(utf8: "3"), changes: ItemChanges())
        let after = readBytes(path)
        #expect(Array(after.prefix(written.count)) == written && !after.suffix(after.count - written.count).starts(with: [0, 0, 0, 0, 0, 0, 0, 0]))
        let reopened = fastStore(path)
        try reopened.unlock(passphrase: testPassphrase)
        #expect(try reopened.list(service: "s").map(\.key.account) == ["a", "b", "c"])
    }

    /// The attack a passphrase change must defeat: an old copy of the file plus the old
    /// passphrase give the old data key; with it, try to read what was written after the change.
    @Test func anOldCopyAndTheOldPassphraseDecryptNothingWrittenAfterAChange() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db"), oldCopy = directory.file("old-copy.db")
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("before", "change"), secret: SecretBytes(utf8: "old secret"), changes: ItemChanges())
        writeBytes(readBytes(path), to: oldCopy)
        let newPassphrase = SecretBytes(utf8: "a new passphrase")
        try store.changePassphrase(current: testPassphrase, new: newPassphrase, rekey: true)
        try store.set(key("after", "change"), secret: SecretBytes(utf8: "NEW-SECRET-MARKER"), changes: ItemChanges())

        let python = Self.packageRoot + "/.venv/bin/python", script = Self.packageRoot + "/scripts/decrypt-vault.py"
        let attempt = try run([python, script, path, passphraseFile(in: directory), "--key-from", oldCopy])
        #expect(attempt.status == 1 && attempt.stderr.contains("file MAC does not verify"), "\(attempt.stderr)")
        #expect(!attempt.text.contains(Array("NEW-SECRET-MARKER".utf8).map { String(format: "%02x", $0) }.joined()))
        // The old copy itself still opens with the old passphrase (it is what it was), and the
        // current file opens with the new one and holds both items.
        #expect(try run([python, script, oldCopy, passphraseFile(in: directory)]).status == 0)
        let newFile = directory.file("new-passphrase")
        writeBytes(Array("a new passphrase".utf8), to: newFile)
        let current = try run([python, script, path, newFile])
        #expect(current.status == 0 && current.text.contains("\"before\"") && current.text.contains("\"after\""), "\(current.stderr)")

        // Re-wrapping only (the documented fast path) keeps the data key, so the same attempt
        // then succeeds: re-keying is what closes that door.
        writeBytes(readBytes(path), to: oldCopy)
        try store.changePassphrase(current: newPassphrase, new: testPassphrase, rekey: false)
        try store.set(key("after", "rewrap"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        let rewrapped = try run([python, script, path, newFile, "--key-from", oldCopy])
        #expect(rewrapped.status == 0 && rewrapped.text.contains("\"rewrap\""), "\(rewrapped.stderr)")
    }
}
