import Foundation
import Testing
import VaultCore
import VaultCrypto
@testable import VaultStores

@Suite struct EncryptedFileStoreTests {
    @Test func itemsSurviveReopeningFromDisk() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let writer = fastStore(path)
        try writer.unlock(passphrase: testPassphrase)
        try writer.set(key("github.com", "octocat"), secret: SecretBytes([0, 1, 2, 255]), changes: ItemChanges(label: "GitHub", comment: "PAT"))
        try writer.set(key("empty", "one"), secret: .empty, changes: ItemChanges())

        let reader = fastStore(path)
        #expect(reader.status().isLocked)
        try reader.unlock(passphrase: testPassphrase)
        let item = try reader.get(key("github.com", "octocat"))
        #expect(item.secret.unprotectedBytes == [0, 1, 2, 255])
        #expect(item.info.label == "GitHub" && item.info.comment == "PAT" && item.info.kind == .secret)
        #expect(try reader.get(key("empty", "one")).secret.isEmpty)
        #expect(reader.status().itemCount == 2)
    }

    @Test func createsTheDirectory0700AndTheFile0600() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("deep/er/vault.db")
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("a", "b"), secret: SecretBytes(utf8: "x"), changes: ItemChanges())
        #expect(mode(of: directory.file("deep/er")) == 0o700)
        #expect(mode(of: directory.file("deep")) == 0o700)
        #expect(mode(of: path) == 0o600)
        #expect(mode(of: path + ".lock") == 0o600)
        // Only the vault and its lock file: no temp files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("deep/er")).sorted() == ["vault.db", "vault.db.lock"])
    }

    @Test func aWrongPassphraseIsAnErrorAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("a", "b"), secret: SecretBytes(utf8: "keep me"), changes: ItemChanges())
        let before = readBytes(path)

        let other = fastStore(path)
        #expect(throws: VaultError.wrongPassphrase) { try other.unlock(passphrase: SecretBytes(utf8: "not it")) }
        #expect(other.status().isLocked)
        #expect(readBytes(path) == before)
    }

    @Test func emptyPassphrasesAreRefusedAndCreateNothing() throws {
        let directory = TemporaryDirectory()
        let store = fastStore(directory.file("vault.db"))
        #expect { try store.unlock(passphrase: .empty) } throws: { ($0 as? VaultError)?.code == .badRequest }
        #expect { try store.unlock(passphrase: nil) } throws: { ($0 as? VaultError)?.code == .passphraseRequired }
        #expect(!store.exists)
    }

    @Test func changingThePassphraseReKeysAndKeepsItems() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("svc", "acct"), secret: SecretBytes(utf8: "still here"), changes: ItemChanges())
        let newPassphrase = SecretBytes(utf8: "a much better passphrase")
        let before = readBytes(path)

        #expect(throws: VaultError.wrongPassphrase) {
            try store.changePassphrase(current: SecretBytes(utf8: "wrong"), new: newPassphrase)
        }
        try store.changePassphrase(current: testPassphrase, new: newPassphrase, parameters: Scrypt.Parameters(log2N: 15, r: 8, p: 1))
        // The data key changed: the old copy's key, unwrapped with the old passphrase, opens nothing new.
        let oldKey = try VaultFile.decodeEnvelope(before, path: path).keyBlock.unwrap(passphrase: testPassphrase)
        #expect { try VaultFile.open(readBytes(path), path: path) { _ in oldKey } } throws: { ($0 as? VaultError)?.code == .corruptVault }
        // The store that changed it keeps working, under the new data key.
        #expect(try store.get(key("svc", "acct")).secret == SecretBytes(utf8: "still here"))

        #expect(throws: VaultError.wrongPassphrase) { try fastStore(path).unlock(passphrase: testPassphrase) }
        let reopened = fastStore(path)
        try reopened.unlock(passphrase: newPassphrase)
        #expect(try reopened.get(key("svc", "acct")).secret == SecretBytes(utf8: "still here"))
        #expect(try VaultFile.decodeEnvelope(readBytes(path), path: path).keyBlock.parameters.log2N == 15)
    }

    /// Another process (here: another store on the same file) re-keys the vault: this one's key no
    /// longer opens the file. It locks and says why, instead of calling the file tampered, and
    /// writes nothing.
    @Test func aReKeyElsewhereLocksThisStoreWithAReason() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let here = fastStore(path), elsewhere = fastStore(path)
        try here.unlock(passphrase: testPassphrase)
        try here.set(key("svc", "acct"), secret: SecretBytes(utf8: "kept"), changes: ItemChanges())
        try elsewhere.unlock(passphrase: testPassphrase)
        let newPassphrase = SecretBytes(utf8: "changed elsewhere")
        try elsewhere.changePassphrase(current: testPassphrase, new: newPassphrase, rekey: true)
        let after = readBytes(path)
        #expect { try here.set(key("svc", "other"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) } throws: {
            ($0 as? VaultError)?.code == .locked && "\($0)".contains("passphrase was changed by another program")
        }
        #expect(readBytes(path) == after)
        #expect(here.status().isLocked)
        try here.unlock(passphrase: newPassphrase)
        #expect(try here.get(key("svc", "acct")).secret == SecretBytes(utf8: "kept"))
        // A re-wrap elsewhere keeps the data key: this store just reloads and carries on.
        try elsewhere.changePassphrase(current: newPassphrase, new: testPassphrase, rekey: false)
        #expect(try here.get(key("svc", "acct")).secret == SecretBytes(utf8: "kept"))
    }

    @Test func theDefaultCostIsWrittenToNewVaults() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        try EncryptedFileStore(path: path).unlock(passphrase: testPassphrase)
        let parameters = try VaultFile.decodeEnvelope(readBytes(path), path: path).keyBlock.parameters
        #expect(parameters == Scrypt.Parameters.default)
        #expect(parameters.n >= 1 << 16 && parameters.r == 8 && parameters.p == 1)
    }

    @Test func anotherInstanceSeesWritesAndDoesNotLoseThem() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let first = fastStore(path), second = fastStore(path)
        try first.unlock(passphrase: testPassphrase)
        try second.unlock(passphrase: testPassphrase)
        try first.set(key("s", "from-first"), secret: SecretBytes(utf8: "1"), changes: ItemChanges())
        try second.set(key("s", "from-second"), secret: SecretBytes(utf8: "2"), changes: ItemChanges())
        #expect(try first.list(service: "s").map(\.key.account) == ["from-first", "from-second"])
        try first.delete(key("s", "from-second"))
        #expect(throws: VaultError.notFound(key("s", "from-second"))) { try second.get(key("s", "from-second")) }
    }

    @Test func noPlaintextReachesTheDisk() throws {
        let directory = TemporaryDirectory()
        let data = directory.file("data")
        let store = fastStore(data + "/vault.db")
        try store.unlock(passphrase: testPassphrase)
        let markers = ["SERVICE-MARKER-7f3a", "ACCOUNT-MARKER-91bc", "SECRET-MARKER-c0ffee", "LABEL-MARKER-55aa", "COMMENT-MARKER-d00d"]
        try store.set(
            key(markers[0], markers[1]), secret: SecretBytes(utf8: markers[2]),
            changes: ItemChanges(label: markers[3], comment: markers[4]))
        try store.set(key(markers[0], "second"), secret: SecretBytes(utf8: markers[2] + "-2"), changes: ItemChanges())
        try store.delete(key(markers[0], "second"))
        try store.changePassphrase(current: testPassphrase, new: SecretBytes(utf8: "PASSPHRASE-MARKER-beef"))

        let files = try FileManager.default.subpathsOfDirectory(atPath: data)
        #expect(!files.isEmpty)
        for file in files {
            let contents = readBytes(data + "/" + file)
            for marker in markers + ["PASSPHRASE-MARKER-beef", "correct horse"] {
                #expect(!contents.contains(subsequence: Array(marker.utf8)), "\(marker) found in \(file)")
            }
        }
    }

    @Test func filesOthersCanAccessAreRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        try fastStore(path).unlock(passphrase: testPassphrase)
        chmod(path, 0o644)
        #expect { try fastStore(path).unlock(passphrase: testPassphrase) } throws: {
            ($0 as? VaultError)?.code == .permissionDenied && "\($0)".contains("chmod 600")
        }
        chmod(path, 0o600)
        chmod(directory.path, 0o777)
        #expect { try fastStore(path).unlock(passphrase: testPassphrase) } throws: {
            ($0 as? VaultError)?.code == .permissionDenied && "\($0)".contains("chmod 700")
        }
        chmod(directory.path, 0o700)
        #expect(throws: Never.self) { try fastStore(path).unlock(passphrase: testPassphrase) }
    }

    /// Writes never follow a link (O_NOFOLLOW; a compaction would replace the link itself), so
    /// reads must not either: a vault path that is a symbolic link is refused at unlock, naming
    /// the path and the real one to use, and a link put in place of an open vault fails its next use.
    @Test func aVaultPathThatIsASymbolicLinkIsRefusedNamingTheRealPath() throws {
        let directory = TemporaryDirectory()
        let (real, store) = try newVault(directory)
        let link = directory.file("link.db")
        try store.set(key("svc", "acct"), secret: SecretBytes(utf8: "s3cret"), changes: ItemChanges())
        let before = readBytes(real)
        symlink(real, link)
        func refusesTheLink(_ error: any Error) -> Bool {
            (error as? VaultError)?.code == .permissionDenied && "\(error)".contains(link) && "\(error)".contains("symbolic link")
                && "\(error)".contains("to the real path, \(real)")
        }
        #expect { try fastStore(link).unlock(passphrase: testPassphrase) } throws: { refusesTheLink($0) }
        // A dangling link is not a missing vault to create through.
        let dangling = directory.file("dangling.db")
        symlink(directory.file("nowhere.db"), dangling)
        #expect { try fastStore(dangling).unlock(passphrase: testPassphrase) } throws: {
            ($0 as? VaultError)?.code == .permissionDenied && "\($0)".contains("symbolic link")
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("nowhere.db")) == false)
        // The open vault replaced by a link to a copy: refused on its next read and write, nothing written.
        let copy = directory.file("copy.db")
        writeBytes(before, to: copy)
        #expect(rename(real, directory.file("moved.db")) == 0)
        symlink(copy, real)
        #expect { _ = try store.get(key("svc", "acct")) } throws: { ($0 as? VaultError)?.code == .permissionDenied && "\($0)".contains("symbolic link") }
        #expect { try store.set(key("svc", "other"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) } throws: {
            ($0 as? VaultError)?.code == .permissionDenied
        }
        #expect(readBytes(copy) == before)
    }

    /// `<vault>.lock` is opened with O_CREAT: through a symbolic link that would create (or
    /// truncate nothing, but lock) a file of the link's choosing. A link, or a FIFO, there is
    /// refused with the lock file's path, and the write leaves the vault as it was.
    @Test func aLockFileThatIsASymbolicLinkOrAFIFOIsRefusedNotFollowed() throws {
        for kind in ["link", "fifo"] {
            let directory = TemporaryDirectory()
            let (path, store) = try newVault(directory)
            try store.set(key("svc", "acct"), secret: SecretBytes(utf8: "s3cret"), changes: ItemChanges())
            let before = readBytes(path)
            let lock = path + ".lock"
            #expect(unlink(lock) == 0 || errno == ENOENT)
            let target = directory.file("elsewhere")
            if kind == "link" { symlink(target, lock) } else { #expect(mkfifo(lock, 0o600) == 0) }
            #expect { try store.set(key("svc", "other"), secret: SecretBytes(utf8: "x"), changes: ItemChanges()) } throws: {
                ($0 as? VaultError)?.code == .permissionDenied && "\($0)".contains(lock)
            }
            #expect(!FileManager.default.fileExists(atPath: target), "\(kind): the link's target was created")
            let unchanged = readBytes(path) == before
            #expect(unchanged, "\(kind): the vault was written")
        }
    }

    /// A FIFO where the vault file is is refused, not waited on (a reader holding the store's
    /// lock would block every request behind it): the path is looked at first, and the open that
    /// follows does not wait either, should a FIFO be put there in between (O_NONBLOCK).
    @Test func aFIFOInPlaceOfTheVaultIsRefusedWithoutWaiting() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        #expect(mkfifo(path, 0o600) == 0)
        #expect { try fastStore(path).unlock(passphrase: testPassphrase) } throws: {
            if case .notAVault? = $0 as? VaultError { return true }
            return false
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { start in
            self[start..<start + subsequence.count].elementsEqual(subsequence)
        }
    }
}
