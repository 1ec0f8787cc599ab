import Foundation
import Testing
import VaultCore
import VaultStores
import VaultSystem

/// ENOSPC, EIO and short writes at every step of every kind of write the file store makes (a
/// journal append, a compaction, a passphrase change, a new vault, a deletion): the operation
/// fails with an error, nothing acknowledged before it is lost (in the store that failed and in
/// a fresh reader of the file), and the next write works.
@Suite struct StorageFaultTests {
    static let base: [String: [UInt8]] = ["a": Array("one".utf8), "b": Array("two".utf8)]
    static let newPassphrase = SecretBytes(utf8: "the new passphrase")

    /// A fresh reader of the vault at `path`, unlocked with whichever passphrase opens it (after a
    /// failed passphrase change, either may).
    static func reader(_ path: String) throws -> EncryptedFileStore {
        let reader = fastStore(path)
        do {
            try reader.unlock(passphrase: testPassphrase)
        } catch VaultError.wrongPassphrase {
            try reader.unlock(passphrase: newPassphrase)
        }
        return reader
    }

    enum Operation: String, CaseIterable {
        case append, compaction, changePassphrase, delete, create
    }

    /// A directory holding a vault of `base` (and, for a compaction, a journal at its floor).
    static func prepared(_ operation: Operation) throws -> (TemporaryDirectory, EncryptedFileStore) {
        let directory = TemporaryDirectory()
        let store = EncryptedFileStore(path: directory.file("vault.db"), options: .init(kdfParameters: .minimum, lockTimeout: 30, compactionFloor: 600))
        guard operation != .create else { return (directory, store) }
        try store.unlock(passphrase: testPassphrase)
        for (account, secret) in base { _ = try store.set(key("s", account), secret: SecretBytes(secret), changes: ItemChanges()) }
        if operation == .compaction {
            _ = try store.set(key("s", "a"), secret: SecretBytes(base["a"]!), changes: ItemChanges(comment: String(repeating: "x", count: 300)))
        }
        return (directory, store)
    }

    static func run(_ operation: Operation, _ store: EncryptedFileStore) throws {
        switch operation {
        case .append: _ = try store.set(key("s", "c"), secret: SecretBytes(utf8: "three"), changes: ItemChanges())
        case .compaction: _ = try store.set(key("s", "c"), secret: SecretBytes([UInt8](repeating: 7, count: 400)), changes: ItemChanges())
        case .changePassphrase: try store.changePassphrase(current: testPassphrase, new: newPassphrase, parameters: .minimum, rekey: true)
        case .delete: try store.delete(key("s", "b"))
        case .create: try store.unlock(passphrase: testPassphrase)
        }
    }

    /// The items of `store` under service "s" (nil when it does not open or is locked).
    static func items(_ store: EncryptedFileStore) -> [String: [UInt8]]? {
        guard let infos = try? store.list(service: "s") else { return nil }
        var items: [String: [UInt8]] = [:]
        for info in infos { items[info.key.account] = try? store.get(info.key).secret.unprotectedBytes }
        return items
    }

    @Test(arguments: Operation.allCases)
    func everyStepFailsCleanly(_ operation: Operation) throws {
        let counter: Int
        do {
            let (directory, store) = try Self.prepared(operation)
            let injector = FaultInjector(directory: directory.path)
            StorageEvents.add(injector)
            defer { StorageEvents.remove(injector) }
            try Self.run(operation, store)
            counter = injector.calls
        }
        #expect(counter > 0, "\(operation) changes no file")
        let before = operation == .create ? [:] : Self.base
        var checked = 0
        for step in 0..<counter {
            for fault in [FaultInjector.Fault.error(.noSpace), .error(Errno(EIO)), .shortThenError(.noSpace)] {
                let (directory, store) = try Self.prepared(operation)
                let context = "\(operation), step \(step) of \(counter) failing with \(fault)"
                let injector = FaultInjector(directory: directory.path, failAt: step, fault: fault)
                StorageEvents.add(injector)
                let outcome = Result { try Self.run(operation, store) }
                StorageEvents.remove(injector)
                guard case .failure(let error) = outcome else {
                    Issue.record("\(context): the operation succeeded")
                    continue
                }
                #expect(error is VaultError, "\(context): \(error)")
                // A passphrase change that failed after the new file took the old one's place says so.
                if operation == .changePassphrase, (try? Self.reader(directory.file("vault.db")).verifyPassphrase(Self.newPassphrase)) == true {
                    #expect("\(error)".contains("the new passphrase is in place"), "\(context): \(error)")
                }
                // Nothing lost: in the store that failed, and in a fresh reader of the file.
                if operation == .create {
                    // A vault half made is not a vault: the next unlock makes it, or opens it.
                    try? fastStore(directory.file("vault.db")).unlock(passphrase: testPassphrase)
                } else {
                    let reader = try Self.reader(directory.file("vault.db"))
                    for candidate in [store, reader] {
                        let items = Self.items(candidate)
                        #expect(items.map { Self.holds($0, before, operation) } == true, "\(context): \(items.map { "\($0.keys.sorted())" } ?? "unreadable")")
                    }
                }
                // The next write works, and is read back by a fresh reader.
                if operation == .create { try store.unlock(passphrase: testPassphrase) }
                _ = try store.set(key("s", "next"), secret: SecretBytes(utf8: "after the fault"), changes: ItemChanges())
                let after = try Self.reader(directory.file("vault.db"))
                #expect(try after.get(key("s", "next")).secret.unprotectedBytes == Array("after the fault".utf8), "\(context)")
                checked += 1
            }
        }
        print("storage faults checked for \(operation): \(checked)")
    }

    /// Whether `items` are `before`, with the failed operation's one change applied or not.
    static func holds(_ items: [String: [UInt8]], _ before: [String: [UInt8]], _ operation: Operation) -> Bool {
        var after = before
        switch operation {
        case .append: after["c"] = Array("three".utf8)
        case .compaction: after["c"] = [UInt8](repeating: 7, count: 400)
        case .delete: after["b"] = nil
        case .changePassphrase, .create: break
        }
        return items == before || items == after
    }
}
