import Foundation
import Testing
import VaultCore
import VaultStores

/// Inside `StoreCheckScope.run` (one request) the file store checks for other processes'
/// writes at its first read only; outside one, every read checks; writes always do. The
/// generation the caches key on changes exactly when what the store holds may have.
@Suite struct StoreCheckScopeTests {
    @Test func aScopeChecksOnceAndEveryReadOutsideOneChecks() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        let other = fastStore(path)
        try other.unlock(passphrase: testPassphrase)
        let item = key("s", "a")
        try other.set(item, secret: SecretBytes(utf8: "1"), changes: ItemChanges())

        #expect(try store.get(item).secret == SecretBytes(utf8: "1"))  // no scope: checks
        let generation = try #require(try store.itemsGeneration())
        #expect(try store.itemsGeneration() == generation)  // nothing changed, nothing read
        try StoreCheckScope.run { () throws in
            #expect(try store.get(item).secret == SecretBytes(utf8: "1"))  // the request's one check
            try other.set(item, secret: SecretBytes(utf8: "2"), changes: ItemChanges())
            #expect(try store.get(item).secret == SecretBytes(utf8: "1"))  // the request's view
            #expect(try store.itemsGeneration() == generation)
            StoreCheckScope.checkAgain()
            #expect(try store.get(item).secret == SecretBytes(utf8: "2"))
            let caughtUp = try #require(try store.itemsGeneration())
            #expect(caughtUp != generation)

            // A write in the scope still catches up first, under the file lock: nothing is lost.
            try other.set(key("s", "b"), secret: SecretBytes(utf8: "b"), changes: ItemChanges())
            try store.set(key("s", "c"), secret: SecretBytes(utf8: "c"), changes: ItemChanges())
            #expect(try store.list(service: "s").map(\.key.account) == ["a", "b", "c"])
            #expect(try store.itemsGeneration() != caughtUp)
        }
        try other.set(item, secret: SecretBytes(utf8: "3"), changes: ItemChanges())
        try StoreCheckScope.run { () throws in  // the next request checks again
            #expect(try store.get(item).secret == SecretBytes(utf8: "3"))
        }
        try other.set(item, secret: SecretBytes(utf8: "4"), changes: ItemChanges())
        #expect(try store.get(item).secret == SecretBytes(utf8: "4"))
        let reader = fastStore(path)
        try reader.unlock(passphrase: testPassphrase)
        #expect(try reader.list(service: "s").map(\.key.account) == ["a", "b", "c"])
    }

    @Test func theGenerationChangesWithLockUnlockAndEveryWrite() throws {
        let directory = TemporaryDirectory()
        let (_, store) = try newVault(directory)
        var seen = Set([try #require(try store.itemsGeneration())])
        try store.set(key("s", "a"), secret: SecretBytes(utf8: "1"), changes: ItemChanges())
        #expect(seen.insert(try #require(try store.itemsGeneration())).inserted)
        try store.delete(key("s", "a"))
        #expect(seen.insert(try #require(try store.itemsGeneration())).inserted)
        try store.lock()
        #expect(throws: VaultError.self) { try store.itemsGeneration() }
        try store.unlock(passphrase: testPassphrase)
        #expect(seen.insert(try #require(try store.itemsGeneration())).inserted)
        let memory = InMemoryStore()
        let first = try #require(try memory.itemsGeneration())
        try memory.set(key("s", "a"), secret: SecretBytes(utf8: "1"), changes: ItemChanges())
        #expect(try memory.itemsGeneration() != first)
    }
}
