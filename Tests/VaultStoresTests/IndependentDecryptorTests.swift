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
}
