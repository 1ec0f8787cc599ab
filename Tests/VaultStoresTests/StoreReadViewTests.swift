import Foundation
import Testing
import VaultCore
import VaultStores

/// Through one request's `StoreReadView` the file store looks for other processes' writes at its
/// first read only; a read outside a view always looks; writes always do. The generation the
/// caches key on changes exactly when what the store holds may have.
@Suite struct StoreReadViewTests {
    @Test func aViewLooksOnceAndEveryReadOutsideOneLooks() throws {
        let directory = TemporaryDirectory()
        let (path, store) = try newVault(directory)
        let other = fastStore(path)
        try other.unlock(passphrase: testPassphrase)
        let item = key("s", "a")
        try other.set(item, secret: SecretBytes(utf8: "1"), changes: ItemChanges())

        #expect(try store.get(item).secret == SecretBytes(utf8: "1"))  // no view: looks
        let generation = try #require(try store.itemsGeneration())
        #expect(try store.itemsGeneration() == generation)  // nothing changed, nothing read
        let view = StoreReadView()
        #expect(try view.reading(store).get(item).secret == SecretBytes(utf8: "1"))  // the request's one look
        try other.set(item, secret: SecretBytes(utf8: "2"), changes: ItemChanges())
        #expect(try view.reading(store).get(item).secret == SecretBytes(utf8: "1"))  // the request's view
        #expect(try view.reading(store).itemsGeneration() == generation)
        #expect(view.reading(store).identity == store.identity, "caches key on the store, not the view")
        view.lookAgain()
        #expect(try view.reading(store).get(item).secret == SecretBytes(utf8: "2"))
        let caughtUp = try #require(try store.itemsGeneration())
        #expect(caughtUp != generation)

        // A write through the view still catches up first, under the file lock: nothing is lost.
        try other.set(key("s", "b"), secret: SecretBytes(utf8: "b"), changes: ItemChanges())
        try view.reading(store).set(key("s", "c"), secret: SecretBytes(utf8: "c"), changes: ItemChanges())
        #expect(try view.reading(store).list(service: "s").map(\.key.account) == ["a", "b", "c"])
        #expect(try store.itemsGeneration() != caughtUp)

        try other.set(item, secret: SecretBytes(utf8: "3"), changes: ItemChanges())
        #expect(try StoreReadView().reading(store).get(item).secret == SecretBytes(utf8: "3"))  // the next request looks again
        try other.set(item, secret: SecretBytes(utf8: "4"), changes: ItemChanges())
        #expect(try store.get(item).secret == SecretBytes(utf8: "4"))
        let reader = fastStore(path)
        try reader.unlock(passphrase: testPassphrase)
        #expect(try reader.list(service: "s").map(\.key.account) == ["a", "b", "c"])
    }

    @Test func aStoreNoOtherProcessWritesIsItsOwnView() throws {
        let memory = InMemoryStore()
        let view = StoreReadView()
        #expect(view.reading(memory) === memory)
        #expect(view.reading(memory) === memory)
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
