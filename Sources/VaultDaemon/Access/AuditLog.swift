#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import VaultCore
import VaultCrypto
import VaultProtocol

/// The audit log: one record per access (`AuditEntryBody`: time, op, item, result, caller),
/// appended to `audit.log` in the vault's 0700 directory, mode 0600, never through a symbolic
/// link. Each line is one record sealed on its own with AES-256-GCM under the audit key (kept in
/// the vault, `ItemKey.auditKey`) and a fresh random nonce: base64(nonce ‖ ciphertext ‖ tag). So
/// the bytes on disk name no item, and the log is readable only through an unlocked vaultd.
/// When appending would pass `maxBytes`, audit.log becomes audit.log.1 (and .1 becomes .2, ...,
/// the oldest of `keep` dropped).
final class AuditLog: Sendable {
    let directory: String
    let maxBytes: Int
    let keep: Int
    /// What appending needs, behind one lock (adaptive: many connection threads append, and
    /// Swift's `Mutex` went to the kernel for nearly every contended record):
    /// - `last`, the time of the last record appended (µs): each record's time is later than the
    ///   one before, so `after` picks up exactly the records a follower has not seen. Microseconds,
    ///   not the milliseconds of items' times: with one record per millisecond at most, a busy
    ///   vaultd (thousands of `get`s a second) dated its records ever further in the future;
    /// - `held`, the log kept open between records, with the identity it had when opened:
    ///   reopened (the directory checked, the file opened safely again) only when the file at
    ///   `path` is no longer that one (rotated, removed, replaced) or when it must rotate. One
    ///   stat per record instead of a directory walk, an open and a close.
    /// - `seeded`, whether `last` has been raised to the newest record already in the log (by
    ///   this process before a restart, or another vaultd): the next record is dated after it
    ///   even if that one is ahead of the clock, or the clock stepped back, so a follower that
    ///   saw it misses nothing written since.
    private struct Writer {
        var last: Int64 = 0
        var held: OpenLog?
        var seeded = false
    }
    private let writer = AdaptiveLock(Writer())
    /// `Writer.last`, readable without the lock: a record is sealed before the lock is taken, under
    /// the time after this, and sealed again inside only when another record took that time meanwhile.
    private let lastTime = Atomic<Int64>(0)

    private final class OpenLog {
        let fd: FileDescriptor
        let device: UInt64
        let inode: UInt64
        var size: Int64

        init(fd: FileDescriptor, device: UInt64, inode: UInt64, size: Int64) {
            (self.fd, self.device, self.inode, self.size) = (fd, device, inode, size)
        }

        deinit { fd.close() }
    }
    private let appended = WakeList()

    static let associatedData = Array("vault audit record v1".utf8)

    init(directory: String, maxBytes: Int = 1 << 20, keep: Int = 4) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.keep = keep
    }

    var path: String { directory + "/audit.log" }

    private func rotated(_ generation: Int) -> String { generation == 0 ? path : path + ".\(generation)" }

    /// Seals and appends `entry` (its `time` is set here).
    func append(_ entry: AuditEntryBody, key: SecretBytes) throws {
        // Before the lock, which other connection threads wait for: a system call fewer inside it.
        let current = try FileStatus.of(path, followSymlinks: false)
        var sealed = try Self.seal(entry, at: max(Clock.nowMicroseconds(), lastTime.load(ordering: .relaxed) + 1), key: key)
        try writer.withLock { writer in
            if !writer.seeded {
                writer.seeded = true
                if let newest = newestTime(key: key) { writer.last = max(writer.last, newest) }
            }
            if sealed.time <= writer.last {
                sealed = try Self.seal(entry, at: max(Clock.nowMicroseconds(), writer.last + 1), key: key)
            }
            try write(sealed.line, to: &writer.held, current: current)
            writer.last = sealed.time
            lastTime.store(sealed.time, ordering: .relaxed)
        }
        appended.wakeAll()
    }

    /// How much of the log's end `newestTime` reads: many records, none of them the whole log.
    static let tailBytes = 64 * 1024

    /// The time of the newest record in the log's last 64 KiB that `key` opens (audit.log, else
    /// audit.log.1 when it holds none, just after a rotation), or nil.
    func newestTime(key: SecretBytes) -> Int64? {
        for generation in 0...1 {
            // The first line may be cut by the 64 KiB boundary: it simply does not open.
            let tail = (try? contents(of: generation, last: Self.tailBytes)) ?? nil
            for line in (tail ?? []).split(separator: 0x0A).reversed() {
                if let entry = Self.open(line, key: key), let time = Timestamp.microseconds(rfc3339: entry.time) { return time }
            }
        }
        return nil
    }

    /// `entry` at `time` (µs), sealed: the log's line.
    static func seal(_ entry: AuditEntryBody, at time: Int64, key: SecretBytes) throws -> (time: Int64, line: [UInt8]) {
        var entry = entry
        entry.time = Timestamp.rfc3339(microseconds: time)
        let box = try AESGCM.seal(AuditEntryEncoder.encode(entry), key: key, authenticating: associatedData)
        return (time, Array(Data(box.nonce + box.ciphertext + box.tag).base64EncodedString().utf8) + [0x0A])
    }

    /// Appends `line` to the open log, (re)opening it when the file at `path` (`current`, as it was
    /// just before the lock was taken) is not the one held, and rotating first when the line would
    /// take it past `maxBytes`. With `writer` locked.
    private func write(_ line: [UInt8], to held: inout OpenLog?, current: FileStatus?) throws {
        if let log = held, let current, current.device == log.device, current.inode == log.inode, log.size + Int64(line.count) <= maxBytes {
            // Still the file we hold, with room left.
        } else {
            held = nil
            try PrivateDirectory.create(directory)
            if let size = try FileStatus.of(path, followSymlinks: false)?.size, size + Int64(line.count) > maxBytes { try rotate() }
            let fd = try FileDescriptor.openPrivateLog(path)
            let status: FileStatus
            do { status = try fd.status() } catch {
                fd.close()
                throw error
            }
            held = OpenLog(fd: fd, device: status.device, inode: status.inode, size: status.size)
        }
        guard let log = held else { return }
        try log.fd.writeAll(line)
        log.size += Int64(line.count)
    }

    private func rotate() throws {
        FileSystem.removeFileIfPresent(rotated(keep))
        for generation in stride(from: keep - 1, through: 0, by: -1) where (try? FileStatus.of(rotated(generation), followSymlinks: false)) != nil {
            try FileSystem.rename(rotated(generation), to: rotated(generation + 1))
        }
    }

    /// The records later than `after` (µs), oldest first, and how many lines could not be
    /// opened (damaged, or sealed under another key).
    func records(key: SecretBytes, after: Int64) throws -> (records: [AuditEntryBody], unreadable: Int) {
        var records: [AuditEntryBody] = []
        var unreadable = 0
        for generation in stride(from: keep, through: 0, by: -1) {
            for line in (try contents(of: generation) ?? []).split(separator: 0x0A) {
                guard let entry = Self.open(line, key: key) else {
                    unreadable += 1
                    continue
                }
                if let time = Timestamp.microseconds(rfc3339: entry.time), time > after { records.append(entry) }
            }
        }
        return (records, unreadable)
    }

    /// The bytes of one generation of the log (its `last` bytes only, if given), never through a
    /// symbolic link; nil when it is absent or not a regular file.
    private func contents(of generation: Int, last: Int? = nil) throws -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(rotated(generation), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) else { return nil }
        return try fd.closeAfter { () throws -> [UInt8]? in
            let status = try fd.status()
            guard status.isRegularFile else { return nil }
            guard let last else { return try fd.readAll(limit: maxBytes * 2) }
            let count = Int(min(status.size, Int64(last)))
            return try fd.read(count: count, at: Int(status.size) - count)
        }
    }

    private static func open(_ line: ArraySlice<UInt8>, key: SecretBytes) -> AuditEntryBody? {
        guard let raw = Data(base64Encoded: Data(line)).map(Array.init), raw.count > AESGCM.nonceSize + AESGCM.tagSize else { return nil }
        let box = AESGCM.SealedBox(
            nonce: Array(raw.prefix(AESGCM.nonceSize)), ciphertext: Array(raw.dropFirst(AESGCM.nonceSize).dropLast(AESGCM.tagSize)),
            tag: Array(raw.suffix(AESGCM.tagSize)))
        guard let plain = try? AESGCM.open(box, key: key, authenticating: associatedData) else { return nil }
        return plain.withUnsafeBytes { try? JSONDecoder().decode(AuditEntryBody.self, from: Data($0)) }
    }

    /// A ticket to wait on for the next append (take it before reading, see `WakeList`).
    func ticket() -> DispatchSemaphore { appended.ticket() }

    func wait(_ ticket: DispatchSemaphore, seconds: Double) { _ = appended.wait(ticket, seconds: seconds) }
}
