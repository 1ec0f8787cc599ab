import Foundation
import Testing
import VaultCore
import VaultStores
import VaultSystem

/// The file store against power loss, as SQLite tests its commits against a crash-test VFS: a
/// workload's every change to the vault's directory is recorded (`StorageRecorder`), then every
/// state a power loss may leave after any prefix of it (`CrashStates`) is written out and
/// opened. In each: the vault opens with the passphrase of the last acknowledged operation (or
/// of the one in flight), holds exactly the items after the last acknowledged operation or
/// after the one in flight (never half of it), takes a write that a fresh reader then sees, and
/// the independent decryptor reads the same items.
@Suite struct PowerLossTests {
    struct Expected: Equatable {
        var items: [String: [UInt8]] = [:]
        var passphrase: [UInt8]
    }

    @Test func everyStateAPowerLossLeavesHoldsEveryAcknowledgedWrite() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let recorder = try StorageRecorder(directory: directory.path)
        let store = EncryptedFileStore(path: path, options: .init(kdfParameters: .minimum, lockTimeout: 30, compactionFloor: 1024))
        var state = Expected(passphrase: testPassphrase.unprotectedBytes)
        var expected: [Expected] = []
        func step(_ body: () throws -> Void) throws {
            try body()
            expected.append(state)
            recorder.acknowledge(expected.count - 1)
        }
        func set(_ account: String, _ secret: [UInt8]) throws {
            try step {
                _ = try store.set(key("s", account), secret: SecretBytes(secret), changes: ItemChanges())
                state.items[account] = secret
            }
        }
        StorageEvents.add(recorder)
        do {
            defer { StorageEvents.remove(recorder) }
            try step { try store.unlock(passphrase: testPassphrase) }
            for index in 0..<8 { try set("a\(index)", Array("first \(index)".utf8)) }
            // Growing secrets push the journal past the compaction floor: snapshots rewritten.
            for round in 0..<8 { try set("a\(round % 3)", [UInt8](repeating: UInt8(round), count: 200 + 150 * round)) }
            try step {
                try store.delete(key("s", "a2"))
                state.items["a2"] = nil
            }
            let next = SecretBytes(utf8: "a new passphrase")
            try step {
                try store.changePassphrase(current: testPassphrase, new: next, parameters: .minimum, rekey: true)
                state.passphrase = next.unprotectedBytes
            }
            try set("a5", Array("after the change".utf8))
            try step {
                try store.delete(key("s", "a0"))
                state.items["a0"] = nil
            }
        }

        var seen = Set<[String: [UInt8]]>()
        var decrypted: [(vault: [UInt8], passphrase: [UInt8], items: [String: [UInt8]])] = []
        for crash in CrashStates.all(recorder) where seen.insert(crash.files).inserted {
            let allowed = crash.acknowledged.map { [expected[$0]] + (($0 + 1) < expected.count ? [expected[$0 + 1]] : []) } ?? [expected[0]]
            let context = "after event \(crash.cut) (\(crash.variant)), operation \(crash.acknowledged.map(String.init) ?? "none") acknowledged"
            guard let vault = crash.files["vault.db"] else {
                #expect(crash.acknowledged == nil, "the vault is gone \(context)")
                continue
            }
            let opened = try Self.open(crash.files, allowed: allowed)
            guard let (items, passphrase) = opened.found else {
                Issue.record("\(opened.problem) \(context)")
                continue
            }
            #expect(allowed.contains(Expected(items: items, passphrase: passphrase)), "\(context): items \(items.keys.sorted())")
            decrypted.append((vault, passphrase, items))
        }
        print("power-loss states checked: \(seen.count)")
        // At least the states before and after each operation, and torn ones besides.
        #expect(seen.count > 2 * expected.count)
        try Self.decryptIndependently(decrypted)
    }

    /// Writes `files` out and opens the vault with each allowed passphrase: its items, and the
    /// proof that it takes a write a fresh reader sees; or what went wrong.
    static func open(_ files: [String: [UInt8]], allowed: [Expected]) throws -> (found: ([String: [UInt8]], [UInt8])?, problem: String) {
        let directory = TemporaryDirectory()
        for (name, bytes) in files { writeBytes(bytes, to: directory.file(name)) }
        var problems: [String] = []
        for passphrase in Set(allowed.map(\.passphrase)) {
            let store = fastStore(directory.file("vault.db"))
            do {
                try store.unlock(passphrase: SecretBytes(passphrase))
                var items: [String: [UInt8]] = [:]
                for info in try store.list(service: "s") { items[info.key.account] = try store.get(info.key).secret.unprotectedBytes }
                _ = try store.set(key("check", "after"), secret: SecretBytes(utf8: "written after the power loss"), changes: ItemChanges())
                let reader = fastStore(directory.file("vault.db"))
                try reader.unlock(passphrase: SecretBytes(passphrase))
                guard try reader.get(key("check", "after")).secret.unprotectedBytes == Array("written after the power loss".utf8) else {
                    return (nil, "a write after the power loss was not read back")
                }
                return ((items, passphrase), "")
            } catch {
                problems.append("\(error)")
            }
        }
        return (nil, "the vault does not open: \(problems.joined(separator: "; "))")
    }

    /// scripts/decrypt-vault.py, written from the format document alone, reads every distinct
    /// vault file the same: one Python process for all of them.
    static func decryptIndependently(_ vaults: [(vault: [UInt8], passphrase: [UInt8], items: [String: [UInt8]])]) throws {
        var unique: [[UInt8]: ([UInt8], [String: [UInt8]])] = [:]
        for vault in vaults { unique[vault.vault] = (vault.passphrase, vault.items) }
        let directory = TemporaryDirectory()
        let ordered = Array(unique)
        for (index, entry) in ordered.enumerated() {
            writeBytes(entry.key, to: directory.file("\(index).db"))
            writeBytes(entry.value.0, to: directory.file("\(index).pass"))
        }
        let root = IndependentDecryptorTests.packageRoot
        let script = """
            import importlib.util, json, sys
            spec = importlib.util.spec_from_file_location("decrypt_vault", sys.argv[1])
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            for index in range(int(sys.argv[3])):
                data = open(f"{sys.argv[2]}/{index}.db", "rb").read()
                try:
                    items = module.decrypt_items(data, module.unwrap(data, open(f"{sys.argv[2]}/{index}.pass", "rb").read()))
                    print(json.dumps({i["account"]: i["secret_hex"] for i in items if i["service"] == "s"}))
                except SystemExit:
                    print("null")
            """
        let result = try run([root + "/.venv/bin/python", "-c", script, root + "/scripts/decrypt-vault.py", directory.path, "\(ordered.count)"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: 0x0A)
        #expect(lines.count == ordered.count)
        for (line, entry) in zip(lines, ordered) {
            let read = try JSONSerialization.jsonObject(with: Data(line)) as? [String: String]
            let hex = entry.value.1.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
            #expect(read == hex, "the decryptor reads \(String(decoding: line, as: UTF8.self)), vault \(hex)")
        }
    }
}
