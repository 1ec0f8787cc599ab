#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import VaultCore
import VaultCrypto
import VaultProtocol
import VaultSystem

/// The audit log: one record per access (`AuditEntryBody`: time, op, item, result, caller),
/// appended to `audit.log` in the vault's 0700 directory, mode 0600, never through a symbolic
/// link. Each line is one record sealed on its own with AES-256-GCM under the audit key (kept in
/// the vault, `ItemKey.auditKey`) and a fresh random nonce: base64(nonce ‖ ciphertext ‖ tag). So
/// the bytes on disk name no item, and the log is readable only through an unlocked vaultd.
/// When appending would pass `maxBytes`, audit.log becomes audit.log.1 (and .1 becomes .2, ...,
/// the oldest of `keep` dropped).
package final class AuditLog: Sendable {
    let directory: String
    let maxBytes: Int
    let keep: Int
    /// Records are written without a lock held across the `write`: each thread takes a time
    /// (`Times.take`, a short critical section with no system call in it), seals its record under
    /// that time, and appends it through the shared `O_APPEND` descriptor, which the kernel keeps
    /// whole. So records from several threads may reach the file out of time order; a reader gets
    /// them sorted, and a follower asking for those after the last it saw is answered only up to
    /// the horizon below which every record is written (`Times.horizon`), so it misses none.
    /// (One lock held across the `write` made every connection thread queue behind one that the
    /// scheduler had preempted in it: most of 32 clients' tail, docs/performance.md, part G.)
    struct Times {
        /// The time of the last record given a time (µs). Each record's time is later than the
        /// one before. Microseconds, not the milliseconds of items' times: with one record per
        /// millisecond at most, a busy vaultd (thousands of `get`s a second) dated its records
        /// ever further in the future.
        var last: Int64 = 0
        /// Whether `last` has been raised to the newest record already in the log (by this
        /// process before a restart, or another vaultd): the next record is dated after it even
        /// if that one is ahead of the clock, or the clock stepped back, so a follower that saw it
        /// misses nothing written since.
        var seeded = false
        /// Times given to records not yet written (few: one per thread appending now).
        var unwritten: [Int64] = []
        /// This process's chain (`AuditChain`): the last record sealed, and the tags of those
        /// sealed but not yet known written, past `written`, the last record up to which every
        /// one is written (the head a reader checks this chain against).
        var sealed: Int64 = 0
        var lastTag: String?
        /// In seq order, from `writtenSeq + 1` (few: one per thread appending now).
        var inFlight: [(seq: Int64, tag: String, time: Int64, done: Bool)] = []
        var writtenSeq: Int64 = 0
        var writtenTag = ""
        var writtenTime: Int64 = 0

        /// The last record up to which every one is written, if any.
        var written: AuditChain.Head? {
            writtenSeq == 0 ? nil : AuditChain.Head(seq: writtenSeq, tag: writtenTag, time: Timestamp.rfc3339(microseconds: writtenTime))
        }

        /// `seq` is in the file: the head moves up over every record now written in order.
        mutating func chainWritten(_ seq: Int64) {
            guard let index = inFlight.firstIndex(where: { $0.seq == seq }) else { return }
            inFlight[index].done = true
            var done = 0
            while done < inFlight.count, inFlight[done].done { done += 1 }
            guard done > 0 else { return }
            (writtenSeq, writtenTag, writtenTime) = (inFlight[done - 1].seq, inFlight[done - 1].tag, inFlight[done - 1].time)
            inFlight.removeFirst(done)
        }

        /// The next record's time, or nil until `last` is seeded.
        mutating func take() -> Int64? {
            guard seeded else { return nil }
            last = max(Clock.nowMicroseconds(), last + 1)
            unwritten.append(last)
            return last
        }

        mutating func written(_ time: Int64) {
            guard let index = unwritten.firstIndex(of: time) else { return }
            unwritten.swapAt(index, unwritten.count - 1)
            unwritten.removeLast()
        }

        /// A time up to which every record this process dates is in the file: just before the
        /// earliest one being written, or, with none, now (`last` is raised to it, so that every
        /// record dated from here on is later; records of another vaultd dated up to now are
        /// then read too).
        mutating func horizon() -> Int64 {
            if let earliest = unwritten.min() { return earliest - 1 }
            last = max(last, Clock.nowMicroseconds())
            return last
        }
    }
    let times = AdaptiveLock(Times())

    /// This process's chain id (`AuditChain`): 6 random bytes, hex.
    let chain: String

    /// The log kept open between records, with the identity it had when opened: reopened (the
    /// directory checked, the file opened safely again) only when the file at `path` is no longer
    /// that one (rotated, removed, replaced) or when it must rotate, by one thread at a time
    /// (`reopening`). One `poll` of the directory's watch per record (a `stat` where it cannot be
    /// watched) instead of a directory walk, an open and a close. A
    /// thread writing through a log another has just replaced keeps it open until its `write` is
    /// done: its record lands in the file that was audit.log, now audit.log.1, and is read there.
    private let held = AdaptiveLock<OpenLog?>(nil)
    let reopening = AdaptiveLock()

    private final class OpenLog: Sendable {
        let fd: FileDescriptor
        let device: UInt64
        let inode: UInt64
        /// Bytes written or promised to records being written (for rotation).
        let size: Atomic<Int64>

        init(fd: FileDescriptor, device: UInt64, inode: UInt64, size: Int64) {
            (self.fd, self.device, self.inode) = (fd, device, inode)
            self.size = Atomic(size)
        }

        func isFile(_ status: FileStatus?) -> Bool {
            guard let status else { return false }
            return status.device == device && status.inode == inode
        }

        /// Promises `count` bytes to a record: false, and nothing promised, when they would take
        /// the log past `limit`.
        func reserve(_ count: Int64, limit: Int) -> Bool {
            var current = size.load(ordering: .relaxed)
            while current + count <= limit {
                let (exchanged, original) = size.compareExchange(expected: current, desired: current + count, ordering: .relaxed)
                if exchanged { return true }
                current = original
            }
            return false
        }

        deinit { fd.close() }
    }
    private let appended = WakeList()
    /// For tests: runs after a record's bytes are promised and before they are written (to hold
    /// a record there while others are appended). Set before any append; nil in vaultd.
    nonisolated(unsafe) var reserved: (@Sendable () -> Void)?

    package static let associatedData = Array("vault audit record v1".utf8)

    /// `afterWatching` is for tests: it runs inside the watch's `rearm` (`ChangeWatch`).
    init(
        directory: String, maxBytes: Int = 1 << 20, keep: Int = 4, isLocalFileSystem: @escaping @Sendable (Int) -> Bool = ChangeWatch.isLocalFileSystem,
        afterWatching: (@Sendable () -> Void)? = nil
    ) {
        self.directory = directory
        path = directory + "/audit.log"
        self.maxBytes = maxBytes
        self.keep = keep
        chain = ((try? SecureRandom.bytes(6)) ?? []).lowercaseHex
        watch = ChangeWatch(directory: directory, file: nil, isLocal: isLocalFileSystem, afterWatching: afterWatching)
    }

    /// Tells a record that audit.log may have been rotated, removed or replaced since the log
    /// held was opened, for one `poll` (`ChangeWatch`); where the directory cannot be watched, a
    /// `stat` of audit.log for each record.
    private let watch: ChangeWatch

    /// audit.log's path, made once: each record stats it.
    let path: String

    func rotated(_ generation: Int) -> String { generation == 0 ? path : path + ".\(generation)" }

    /// Seals and appends `entry` (its `time` is set here).
    /// Seals and appends `entry` (its time and chain fields are set here); whether the log was
    /// rotated to make room for it.
    @discardableResult
    func append(_ entry: AuditEntryBody, key: SecretBytes) throws -> Bool {
        // One lock a record here: the seeded check rides on taking the time. `seed` always
        // leaves the times seeded, so the second `take` gives one. The record is sealed under the
        // same lock (no system call in it), as the chain needs the tag of the one before.
        var sealed = try times.withLock { try Self.chained(entry, in: &$0, chain: chain, key: key) }
        if sealed == nil {
            seed(key: key)
            sealed = try times.withLock { try Self.chained(entry, in: &$0, chain: chain, key: key) }
        }
        guard let sealed else { return false }
        defer {
            times.withLock { times in
                times.written(sealed.time)
                times.chainWritten(sealed.seq)
            }
            appended.wakeAll()
        }
        let (log, rotated) = try log(for: Int64(sealed.line.count))
        reserved?()
        try Self.writeWhole(sealed.line, to: log.fd, path: path)
        return rotated
    }

    /// `entry` dated, numbered and linked into this process's chain, and sealed; nil until the
    /// times are seeded.
    private static func chained(_ entry: AuditEntryBody, in times: inout Times, chain: String, key: SecretBytes) throws -> (time: Int64, seq: Int64, line: [UInt8])? {
        guard let time = times.take() else { return nil }
        var entry = entry
        (entry.chain, entry.seq, entry.prev) = (chain, times.sealed + 1, times.lastTag)
        let sealed: (time: Int64, line: [UInt8], tag: String)
        do {
            sealed = try seal(entry, at: time, key: key)
        } catch {
            times.written(time)
            throw error
        }
        times.sealed += 1
        times.lastTag = sealed.tag
        times.inFlight.append((times.sealed, sealed.tag, time, false))
        return (time, times.sealed, sealed.line)
    }

    /// This process's chain id, and its head: the last record up to which every one is written.
    var head: (chain: String, head: AuditChain.Head?) { (chain, times.withLock { $0.written }) }

    /// One `write` of the whole line. Other threads append through the same descriptor, so the
    /// rest of a short write (a full disk, a file size limit) could land after another record:
    /// the line written in part is ended instead (it fails to open, as damage does, costing only
    /// itself) and the write fails.
    private static func writeWhole(_ line: [UInt8], to fd: FileDescriptor, path: String) throws {
        let written = try line.withUnsafeBytes { bytes in try retryingOnInterrupt { Glibc.write(fd.rawValue, bytes.baseAddress!, bytes.count) } }
        guard written < line.count else { return }
        if written > 0 { _ = [UInt8(0x0A)].withUnsafeBytes { Glibc.write(fd.rawValue, $0.baseAddress!, 1) } }
        // A short write reports no error of its own: a full disk or a file size limit.
        throw VaultError.storage(operation: "append to", path: path, errno: Errno(ENOSPC))
    }

    /// Raises `last` to the newest record already in the log, once.
    func seed(key: SecretBytes) {
        reopening.withLock {
            guard !times.withLock({ $0.seeded }) else { return }
            let newest = newestTime(key: key)
            times.withLock { times in
                if let newest { times.last = max(times.last, newest) }
                times.seeded = true
            }
        }
    }

    /// The open log, with `count` bytes promised to the caller's record: the one held, while the
    /// file at `path` is still that one and has room; else, by one thread at a time, the log
    /// rotated when full and opened again.
    private func log(for count: Int64) throws -> (OpenLog, rotated: Bool) {
        let news = watch.news()
        if news == .quiet, let log = held.withLock({ $0 }), log.reserve(count, limit: maxBytes) { return (log, false) }
        if news == .unwatched {
            let current = try FileStatus.of(path, followSymlinks: false)
            if let log = held.withLock({ $0 }), log.isFile(current), log.reserve(count, limit: maxBytes) { return (log, false) }
        }
        return try reopening.withLock {
            // Set aside first, until the file is looked at: once `rearm` has drained the watch, a
            // request finds it quiet, and must then wait here rather than append to the log held,
            // which another vaultd may have rotated away meanwhile (`ChangeWatch`).
            let heldLog = held.withLock { held in
                defer { held = nil }
                return held
            }
            // The watch's events dropped before the file is looked at: what changes after leaves news.
            if news == .pending { watch.rearm() }
            // Another thread may have reopened it meanwhile.
            let current = try FileStatus.of(path, followSymlinks: false)
            if let log = heldLog, log.isFile(current), log.reserve(count, limit: maxBytes) {
                held.withLock { $0 = log }
                return (log, false)
            }
            // Still the file held and no room: full, counting the bytes promised to records being
            // written, which its size on disk does not show yet. Another file (rotated by another
            // vaultd, replaced): full if its size says so.
            let full: Bool
            if let log = heldLog, log.isFile(current) {
                full = true
            } else {
                full = (current?.size).map { $0 + count > maxBytes } ?? false
            }
            try PrivateDirectory.create(directory)
            if full { try rotate() }
            let fd = try FileDescriptor.openPrivateLog(path)
            let status: FileStatus
            do { status = try fd.status() } catch {
                fd.close()
                throw error
            }
            let log = OpenLog(fd: fd, device: status.device, inode: status.inode, size: status.size + count)
            held.withLock { $0 = log }
            return (log, full)
        }
    }

    /// What a record's successor binds of it (`prev`): the first 9 bytes of its tag, base64. No
    /// record can be made without the key, so the link only has to tell the records apart.
    static func linkTag<Bytes: Collection<UInt8>>(_ tag: Bytes) -> String { Data(tag.prefix(9)).base64EncodedString() }

    /// `entry` at `time` (µs), sealed: the log's line, and its tag (base64) for the next record's `prev`.
    static func seal(_ entry: AuditEntryBody, at time: Int64, key: SecretBytes) throws -> (time: Int64, line: [UInt8], tag: String) {
        var entry = entry
        entry.time = Timestamp.rfc3339(microseconds: time)
        let sealed = try AuditEntryEncoder.encode(entry).withUnsafeBytes { try AESGCM.sealCombined($0, key: key, authenticating: associatedData) }
        return (time, Base64Bytes.line(sealed), linkTag(sealed.suffix(AESGCM.tagSize)))
    }

    private func rotate() throws {
        FileSystem.removeFileIfPresent(rotated(keep))
        for generation in stride(from: keep - 1, through: 0, by: -1) where (try? FileStatus.of(rotated(generation), followSymlinks: false)) != nil {
            try FileSystem.rename(rotated(generation), to: rotated(generation + 1))
        }
    }

    /// A ticket to wait on for the next append (take it before reading, see `WakeList`).
    func ticket() -> DispatchSemaphore { appended.ticket() }

    func wait(_ ticket: DispatchSemaphore, seconds: Double) { _ = appended.wait(ticket, seconds: seconds) }
}
