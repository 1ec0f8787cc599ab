import Foundation
import Synchronization
import Testing
import VaultCore
import VaultCrypto
import VaultProtocol
import VaultTestSupport
@testable import VaultDaemon
import VaultSystem

/// The audit log's file: sealed lines, rotation by size, and damage that costs one record.
@Suite struct AuditLogTests {
    func entry(_ index: Int) -> AuditEntryBody {
        AuditEntryBody(time: "", op: "get", service: "service-\(index)", account: "account", result: "ok", pid: 7, exe: "/usr/bin/tool")
    }

    @Test func recordsAreSealedRotatedBySizeAndReadBackInOrder() throws {
        let directory = TemporaryDirectory()
        let log = AuditLog(directory: directory.file("vault"), maxBytes: 1000, keep: 2)
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        for index in 0..<20 { try log.append(entry(index), key: key) }
        #expect(FileManager.default.fileExists(atPath: log.path + ".1") && FileManager.default.fileExists(atPath: log.path + ".2"))
        #expect(!FileManager.default.fileExists(atPath: log.path + ".3"))
        for file in [log.path, log.path + ".1", log.path + ".2"] {
            #expect(try FileStatus.of(file)?.permissions == 0o600)
            #expect(!(try String(contentsOfFile: file, encoding: .utf8)).contains("service-"))
            #expect(try FileStatus.of(file)?.size ?? 0 <= 1000)
        }
        #expect(try FileStatus.of(directory.file("vault"))?.permissions == 0o700)
        let (records, unreadable) = try log.records(key: key, after: .min)
        #expect(unreadable == 0 && records.count < 20 && records.count > 5)
        // The newest kept, oldest first, each later than the one before.
        #expect(records.last?.service == "service-19")
        let times = records.compactMap { Timestamp.microseconds(rfc3339: $0.time) }
        #expect(times == times.sorted() && Set(times).count == times.count)
        #expect(try log.records(key: key, after: times[times.count - 2]).records.map(\.service) == ["service-19"])
        // Another key opens nothing; a damaged line costs only itself.
        #expect(try log.records(key: try SecureRandom.secretBytes(AESGCM.keySize), after: .min).records.isEmpty)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("not a record\n".utf8))
        try handle.close()
        let damaged = try log.records(key: key, after: .min)
        #expect(damaged.unreadable == 1 && damaged.records.count == records.count)
    }

    /// Threads append without a lock held across their `write`, so records may reach the file out
    /// of time order: a reader gets every record once, in strictly increasing time, and a
    /// follower polling while they append (asking each time for those after the latest it got)
    /// misses none and gets none twice, because it is answered only up to where every record is
    /// written, and reads the files while this process cannot rotate them. (Answered with
    /// everything in the files, it missed records, checked.)
    @Test func aFollowerPollingWhileManyThreadsAppendMissesNoRecord() throws {
        let directory = TemporaryDirectory()
        // Rotated about eight times on the way (and nothing dropped: eleven files of 32 KiB hold
        // them all), so the follower also reads across rotations.
        let log = AuditLog(directory: directory.file("vault"), maxBytes: 48 * 1024, keep: 10)
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let threads = 8, each = 150
        let done = Atomic<Int>(0)
        let seen = AdaptiveLock<[AuditEntryBody]>([])
        let follower = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var after = Int64.min
            // As `audit --follow` is served: a ticket before reading, a wait on it when nothing is new.
            while true {
                let finished = done.load(ordering: .acquiring) == threads
                let ticket = log.ticket()
                let batch = (try? log.records(key: key, after: after).records) ?? []
                if let last = batch.last.flatMap({ Timestamp.microseconds(rfc3339: $0.time) }) { after = last }
                seen.withLock { $0 += batch }
                if finished { break }
                if batch.isEmpty { log.wait(ticket, seconds: 1) }
            }
            follower.signal()
        }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<each { try? log.append(entry(thread * each + index), key: key) }
            done.add(1, ordering: .releasing)
        }
        #expect(follower.wait(timeout: .now() + 60) == .success)
        #expect(FileManager.default.fileExists(atPath: log.path + ".5"), "the log did not rotate as the test means it to")
        let followed = seen.withLock { $0 }
        #expect(followed.count == threads * each, "the follower got \(followed.count) of \(threads * each)")
        #expect(Set(followed.compactMap(\.service)).count == followed.count)
        let (records, unreadable) = try log.records(key: key, after: .min)
        #expect(unreadable == 0 && records.count == threads * each)
        let times = records.compactMap { Timestamp.microseconds(rfc3339: $0.time) }
        #expect(times.count == records.count && zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // A reader that got up to any record gets exactly the ones after it.
        let middle = times[times.count / 2]
        #expect(try log.records(key: key, after: middle).records.count == times.count - times.count / 2 - 1)
    }

    /// Rotation while threads append side by side: a record being written when the log is
    /// rotated lands in the file that was audit.log, and every file stays within the size limit.
    @Test func recordsAppendedSideBySideAcrossRotationsAreAllKeptWithinTheLimit() throws {
        let directory = TemporaryDirectory()
        let limit = 15_000
        let log = AuditLog(directory: directory.file("vault"), maxBytes: limit, keep: 8)
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let threads = 8, each = 50
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<each { try? log.append(entry(thread * each + index), key: key) }
        }
        let files = [log.path] + (1...8).map { log.path + ".\($0)" }
        let sizes = files.compactMap { try? FileStatus.of($0)?.size }
        #expect(sizes.count >= 4, "\(sizes): the log did not rotate several times")
        #expect(sizes.allSatisfy { $0 <= Int64(limit) }, "\(sizes)")
        let (records, unreadable) = try log.records(key: key, after: .min)
        #expect(unreadable == 0 && records.count == threads * each)
        #expect(Set(records.compactMap(\.service)).count == threads * each)
    }

    /// Two logs on one directory (two vaultds sharing a vault's directory), appending in turn and
    /// each rotating when full: each notices the other's rotation before its next record, whose
    /// line lands in the new audit.log, not in the audit.log.1 it held open, and every record is
    /// kept; both where the directory is watched (inotify) and where it is not (a `stat` per
    /// record). (Each counts only its own bytes toward the limit, so a shared file may pass it.)
    @Test(arguments: [true, false]) func aRotationByAnotherLogOnTheDirectoryIsNoticedBeforeTheNextRecord(watched: Bool) throws {
        let directory = TemporaryDirectory()
        let keep = 40
        let logs = (0..<2).map { _ in AuditLog(directory: directory.file("vault"), maxBytes: 4_000, keep: keep, isLocalFileSystem: { _ in watched }) }
        let files = [logs[0].path] + (1..<keep).map { logs[0].path + ".\($0)" }
        func lines(_ file: String) -> Set<String> {
            Set(((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init))
        }
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let count = 300
        for index in 0..<count {
            let before = files.reduce(into: Set<String>()) { $0.formUnion(lines($1)) }
            // One in six records from the first log: the second fills its file six times as fast
            // and rotates it while the first still has room in the file it holds open.
            try logs[index % 6 == 0 ? 0 : 1].append(entry(index), key: key)
            try #require(lines(logs[0].path).subtracting(before).count == 1, "record \(index) is not in audit.log")
        }
        #expect(FileManager.default.fileExists(atPath: logs[0].path + ".8"), "the logs rotated several times")
        let (records, unreadable) = try logs[1].records(key: key, after: .min)
        #expect(unreadable == 0 && Set(records.compactMap(\.service)).count == count)
    }

    /// Another vaultd rotates audit.log; this log's next record finds the watch's news and
    /// reopens, and a record of another thread that arrives once the watch is drained finds it
    /// quiet: it must wait for the reopening, not append to the file held, now audit.log.1.
    @Test func aRecordArrivingWhileAnotherReopensTheLogWaitsForIt() throws {
        let directory = TemporaryDirectory()
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let rotated = Atomic<Bool>(false), raced = Atomic<Bool>(false), writtenWhileReopening = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let box = AdaptiveLock<AuditLog?>(nil)
        let log = AuditLog(directory: directory.file("vault"), isLocalFileSystem: { _ in true }, afterWatching: {
            // The first rearm after the rotation, once.
            guard rotated.load(ordering: .relaxed), !raced.exchange(true, ordering: .relaxed), let log = box.withLock({ $0 }) else { return }
            Thread.detachNewThread {
                try? log.append(entry(2), key: key)
                done.signal()
            }
            // While this thread reopens, the other's record must not be written anywhere.
            if done.wait(timeout: .now() + 0.5) == .success { writtenWhileReopening.store(true, ordering: .relaxed) }
        })
        box.withLock { $0 = log }
        // The directory there first, so that the watch is armed from the first record; the second
        // record drains the news of audit.log's creation: the watch is quiet before the rotation.
        try FileManager.default.createDirectory(atPath: directory.file("vault"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try log.append(entry(0), key: key)
        try log.append(entry(1), key: key)
        #expect(rename(log.path, log.path + ".1") == 0)  // what another vaultd's rotation does
        rotated.store(true, ordering: .relaxed)
        try log.append(entry(3), key: key)
        let reopened = raced.load(ordering: .relaxed)
        #expect(reopened, "the log was not reopened after the rotation")
        let writtenMeanwhile = writtenWhileReopening.load(ordering: .relaxed)
        #expect(!writtenMeanwhile, "a record was written while the log was being reopened")
        if reopened, !writtenMeanwhile { #expect(done.wait(timeout: .now() + 10) == .success) }
        func lines(_ file: String) -> Int { ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").count }
        #expect(lines(log.path + ".1") == 2, "only the records from before the rotation are in audit.log.1")
        #expect(lines(log.path) == 2)
        #expect(Set(try log.records(key: key, after: .min).records.compactMap(\.service)) == ["service-0", "service-1", "service-2", "service-3"])
    }

    /// A record whose bytes are promised but not yet written (held there by the test) counts
    /// toward the size limit: the next record that has no room rotates the log instead of
    /// reopening it with only its size on disk, and the held record lands in audit.log.1 within
    /// the limit. (Judged by the size on disk, the log was reopened, and both records went into
    /// one file past its limit.)
    @Test func aRecordBeingWrittenCountsTowardTheSizeLimit() throws {
        let directory = TemporaryDirectory()
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let size = try AuditLog.seal(entry(0), at: Clock.nowMicroseconds(), key: key).line.count
        // Room for two records, not three.
        let log = AuditLog(directory: directory.file("vault"), maxBytes: size * 2 + size / 2)
        let calls = Atomic<Int>(0)
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        log.reserved = {
            // The second record waits between its promise and its write.
            if calls.add(1, ordering: .relaxed).newValue == 2 {
                held.signal()
                release.wait()
            }
        }
        try log.append(entry(1), key: key)
        let second = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? log.append(entry(2), key: key)
            second.signal()
        }
        #expect(held.wait(timeout: .now() + 10) == .success)
        try log.append(entry(3), key: key)
        release.signal()
        #expect(second.wait(timeout: .now() + 10) == .success)
        for file in [log.path, log.path + ".1"] {
            #expect(try FileStatus.of(file)?.size ?? 0 <= Int64(size * 2 + size / 2), "\(file) is over the limit")
        }
        #expect(try log.records(key: key, after: .min).records.compactMap(\.service) == ["service-1", "service-2", "service-3"])
    }

    /// Strictly increasing times must not run ahead of the clock under load: with millisecond
    /// times, 3,000 records appended within a second were dated up to 3 s in the future (a busy
    /// vaultd's log drifted by its request rate); with microseconds each keeps to the clock.
    @Test func aBurstOfRecordsKeepsToTheClock() throws {
        let directory = TemporaryDirectory()
        let log = AuditLog(directory: directory.file("vault"), maxBytes: 1 << 24)
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let started = Clock.nowMicroseconds()
        for index in 0..<3000 { try log.append(entry(index), key: key) }
        let finished = Clock.nowMicroseconds()
        let times = try log.records(key: key, after: .min).records.compactMap { Timestamp.microseconds(rfc3339: $0.time) }
        #expect(times.count == 3000 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(times.first ?? 0 >= started)
        // Each record is dated within a millisecond of when it was written at the latest.
        #expect(times.last ?? .max <= finished + 1000, "the last record is dated \((times.last ?? 0) - finished) µs after the burst ended")
        // A record's time has six digits of fraction.
        #expect(try log.records(key: key, after: .min).records.first?.time.count == 27)
    }

    /// A new vaultd (a restart, an upgrade from millisecond times that ran ahead of the clock, a
    /// clock stepped back) dates its first record after the newest one in the log: a follower
    /// that saw that one asks for those after it and must get the new ones.
    @Test func aRestartDatesItsRecordsAfterTheNewestInTheLog() throws {
        let directory = TemporaryDirectory()
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let future = Clock.nowMicroseconds() + 60_000_000
        let earlier = AuditLog(directory: directory.file("vault"))
        try earlier.append(entry(0), key: key)
        // A record an older vaultd dated a minute ahead, then a line another key sealed (skipped).
        let ahead = try AuditLog.seal(entry(1), at: future, key: key).line
        let foreign = try AuditLog.seal(entry(2), at: future + 5, key: try SecureRandom.secretBytes(AESGCM.keySize)).line
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: earlier.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(ahead + foreign))
        try handle.close()
        let restarted = AuditLog(directory: directory.file("vault"))
        try restarted.append(entry(3), key: key)
        let after = try restarted.records(key: key, after: future).records
        #expect(after.map(\.service) == ["service-3"])
        #expect(try restarted.records(key: key, after: .min).records.map(\.service) == ["service-0", "service-1", "service-3"])
        // With nothing in the log, the clock alone dates the first record.
        let fresh = AuditLog(directory: directory.file("other"))
        try fresh.append(entry(4), key: key)
        let time = try fresh.records(key: key, after: .min).records.first.flatMap { Timestamp.microseconds(rfc3339: $0.time) }
        #expect(time.map { abs($0 - Clock.nowMicroseconds()) < 5_000_000 } == true)
    }

    @Test func theLogIsNeverWrittenThroughASymbolicLink() throws {
        let directory = TemporaryDirectory()
        let log = AuditLog(directory: directory.path)
        let target = directory.file("elsewhere")
        FileManager.default.createFile(atPath: target, contents: Data(), attributes: [.posixPermissions: 0o600])
        symlink(target, log.path)
        #expect(throws: (any Error).self) { try log.append(entry(1), key: try SecureRandom.secretBytes(AESGCM.keySize)) }
        #expect(try FileStatus.of(target)?.size == 0)
    }
}
