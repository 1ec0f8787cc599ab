import Foundation
import Testing
import VaultCore
import VaultStores

/// The file store driven from separate processes by the vault-store-tool helper.
@Suite(.serialized) struct MultiProcessTests {
    /// Runs vault-store-tool with `arguments`, waits until it has printed `afterLines` lines, then
    /// SIGKILLs it at a random moment within `within` µs. Returns all it printed, and whether the
    /// kill (not its own end) stopped it.
    static func killMidRun(_ arguments: [String], environment: [String: String], afterLines: Int, within: UInt32) throws -> (Data, Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: storeToolPath)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = Data()
        while seen.filter({ $0 == 10 }).count < afterLines {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        usleep(UInt32.random(in: 0...within))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        return (seen, process.terminationReason == .uncaughtSignal)
    }

    /// A writer is SIGKILLed at random moments, many times. After every kill the vault opens and
    /// holds, for every item, at least the last write that had returned success.
    @Test func killedWritersNeverLoseAcknowledgedWrites() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let environment = ["VAULT_PASSPHRASE_FILE": passphraseFile(in: directory)]
        var guaranteed: [String: Int] = [:]
        var killedMidRun = 0
        for round in 0..<25 {
            // Every other round compacts as soon as the journal outgrows the snapshot (every ~25
            // writes here), so kills land in compactions as well as in appends.
            let floor = ["VAULT_STORE_TOOL_COMPACTION_FLOOR": round % 2 == 0 ? "65536" : "0"]
            // Kill at a random moment, but only once this round has acknowledged a write to every
            // item: on a loaded machine a fixed delay could pass before the writer wrote anything.
            let (seen, killed) = try Self.killMidRun(
                ["write-loop", path, String(round * 1_000_000), "100000"], environment: environment.merging(floor) { $1 },
                afterLines: 25, within: 150_000)
            if killed { killedMidRun += 1 }
            let lines = String(decoding: seen, as: UTF8.self).split(separator: "\n")
            for line in lines where line.hasPrefix("ok ") {
                let index = Int(line.dropFirst(3))!
                guaranteed["item-\(index % 25)"] = index
            }

            let store = fastStore(path)
            try store.unlock(passphrase: testPassphrase)
            for (account, minimum) in guaranteed {
                let item = try store.get(key("crash", account))
                let written = Int(item.info.comment)!
                #expect(written >= minimum, "round \(round): \(account) went back from \(minimum) to \(written)")
                #expect(item.secret == SecretBytes(utf8: "value-\(written)"), "round \(round): \(account) secret does not match its metadata")
            }
        }
        #expect(killedMidRun == 25)
        #expect(guaranteed.count == 25, "the writer should have acknowledged writes to every item")
    }

    /// A process compacting over and over (passphrase changes to the same passphrase, re-keying
    /// every other time) is SIGKILLed at random moments: the vault always opens with every item,
    /// and the next write removes the temp file a kill before the rename left.
    @Test func killedCompactionsLoseNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let environment = ["VAULT_PASSPHRASE_FILE": passphraseFile(in: directory)]
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        for index in 0..<40 {
            try store.set(key("keep", "item-\(index)"), secret: SecretBytes(utf8: "value-\(index)"), changes: ItemChanges(attributes: ["n": "\(index)"]))
        }
        var killedMidRun = 0
        for round in 0..<15 {
            let (_, killed) = try Self.killMidRun(["compact-loop", path, "100000"], environment: environment, afterLines: 2, within: 100_000)
            if killed { killedMidRun += 1 }

            let reader = fastStore(path)
            try reader.unlock(passphrase: testPassphrase)
            #expect(try reader.list(service: "keep").count == 40, "round \(round)")
            for index in [0, 17, 39] {
                let item = try reader.get(key("keep", "item-\(index)"))
                #expect(item.secret == SecretBytes(utf8: "value-\(index)") && item.info.attributes == ["n": "\(index)"], "round \(round)")
            }
            try reader.set(key("round", "\(round)"), secret: SecretBytes(utf8: "r"), changes: ItemChanges())
            // Only the vault and its lock: whatever a kill left, this write's compaction or append cleared or ignored.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".vault-tmp-") }
            if !names.isEmpty {
                try reader.changePassphrase(current: testPassphrase, new: testPassphrase, rekey: false)
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".vault-tmp-") }.isEmpty)
            }
        }
        #expect(killedMidRun == 15)
        let final = fastStore(path)
        try final.unlock(passphrase: testPassphrase)
        #expect(try final.list(service: "round").count == 15)
    }

    /// Two processes add different items at the same time: every item from both is there.
    @Test func concurrentWritersInDifferentProcessesLoseNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db")
        let environment = ["VAULT_PASSPHRASE_FILE": passphraseFile(in: directory)]
        try fastStore(path).unlock(passphrase: testPassphrase)
        let results = try [("alpha", 40), ("beta", 40), ("gamma", 40)].map { prefix, count in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: storeToolPath)
            process.arguments = ["add-range", path, prefix, String(count)]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in results {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        let items = try store.list(service: "race")
        #expect(items.count == 120)
        for info in items {
            #expect(try store.get(info.key).secret == SecretBytes(utf8: info.key.account))
        }
    }

    /// A real full disk: a 512 KiB tmpfs in a private mount namespace. Writes fail with a clear
    /// "no space left" error, earlier items stay readable, and no temp file is left behind.
    @Test func aFullDiskIsAClearErrorAndTheVaultStaysIntact() throws {
        let directory = TemporaryDirectory()
        let mountPoint = directory.file("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let script = """
            set -u
            mount -t tmpfs -o size=512k,mode=0700 tmpfs "$1" || exit 99
            "$2" fill "$1/vault.db" > "$3/fill.out" 2> "$3/fill.err"
            echo $? > "$3/fill.status"
            "$2" dump "$1/vault.db" > "$3/dump.out" 2> "$3/dump.err"
            echo $? > "$3/dump.status"
            ls -A "$1" > "$3/ls.out"
            """
        let result = try run(
            ["/usr/bin/unshare", "--user", "--map-root-user", "--mount", "/bin/sh", "-c", script, "sh", mountPoint, storeToolPath, directory.path],
            environment: ["VAULT_PASSPHRASE_FILE": passphraseFile(in: directory)])
        #expect(result.status == 0, "could not set up the tmpfs: \(result.stderr)")
        func read(_ name: String) -> String { (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? "" }

        let acknowledged = read("fill.out").split(separator: "\n").filter { $0.hasPrefix("ok ") }.count
        #expect(read("fill.status").hasPrefix("1"))
        #expect(read("fill.err").contains("storage_error") && read("fill.err").contains("no space left"), "\(read("fill.err"))")
        #expect(acknowledged >= 1)
        #expect(read("dump.status").hasPrefix("0"), "\(read("dump.err"))")
        #expect(read("dump.out").split(separator: "\n").count == acknowledged)
        #expect(read("ls.out").split(separator: "\n").sorted() == ["vault.db", "vault.db.lock"])
    }

    /// A directory the process cannot write to (root without CAP_DAC_OVERRIDE, directory 0500):
    /// a write that compacts (it needs a temp file there) is a clear error and changes nothing;
    /// an append needs only the file, so it succeeds.
    @Test func anUnwritableDirectoryIsAClearErrorAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let vaultDirectory = directory.file("vault")
        let path = vaultDirectory + "/vault.db"
        let store = fastStore(path)
        try store.unlock(passphrase: testPassphrase)
        try store.set(key("keep", "me"), secret: SecretBytes(utf8: "original"), changes: ItemChanges())
        let before = readBytes(path)
        chmod(vaultDirectory, 0o500)
        defer { chmod(vaultDirectory, 0o700) }

        func set(compactionFloor: String) throws -> ProcessRunner.Result {
            try run(
                ["/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", storeToolPath, "set", path, "new", "item"],
                environment: ["VAULT_PASSPHRASE_FILE": passphraseFile(in: directory), "VAULT_STORE_TOOL_COMPACTION_FLOOR": compactionFloor],
                input: Array("value".utf8))
        }
        let result = try set(compactionFloor: "0")
        #expect(result.status == 1)
        #expect(result.stderr.contains("storage_error") && result.stderr.contains("permission denied"), "\(result.stderr)")
        #expect(!result.stderr.contains("value"))
        #expect(readBytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: vaultDirectory).sorted() == ["vault.db", "vault.db.lock"])

        let appended = try set(compactionFloor: "65536")
        #expect(appended.status == 0, "\(appended.stderr)")
        #expect(Array(readBytes(path).prefix(before.count)) == before)
        #expect(try store.get(key("new", "item")).secret == SecretBytes(utf8: "value"))
    }
}
