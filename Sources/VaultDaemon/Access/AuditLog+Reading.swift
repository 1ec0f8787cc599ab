#if canImport(Glibc)
import Glibc
#endif
import Foundation
import VaultCore
import VaultCrypto
import VaultProtocol
import VaultSystem

/// Reading the audit log back: its records in time order, each checked against its chain
/// (`AuditChain`), and the newest record's time for a vaultd that starts writing.
extension AuditLog {
    /// How much of the log's end `newestTime` reads: many records, none of them the whole log.
    static let tailBytes = 64 * 1024

    /// The time of the newest record in the log's last 64 KiB that `key` opens (audit.log, else
    /// audit.log.1 when it holds none, just after a rotation), or nil.
    func newestTime(key: SecretBytes) -> Int64? {
        for generation in 0...1 {
            // The first line may be cut by the 64 KiB boundary: it simply does not open.
            let tail = (try? contents(of: generation, last: Self.tailBytes)) ?? nil
            for line in (tail ?? []).split(separator: 0x0A).reversed() {
                if let (entry, _) = Self.open(line, key: key), let time = Timestamp.microseconds(rfc3339: entry.time) { return time }
            }
        }
        return nil
    }

    /// The records later than `after` (µs), oldest first, and how many lines could not be
    /// opened (damaged, or sealed under another key). Only those dated up to the horizon this
    /// process had when it began to read: a record dated earlier but still being written would
    /// otherwise be missed by a follower that asks next for those after the latest it got.
    func records(key: SecretBytes, after: Int64) throws -> (records: [AuditEntryBody], unreadable: Int) {
        let read = try records(key: key, after: after, heads: [:])
        return (read.records, read.unreadable)
    }

    /// `records(key:after:)`, and what checking every record's chain against `heads` (the heads
    /// the vault keeps, by chain) and this process's own head finds (`AuditChain.problems`).
    func records(key: SecretBytes, after: Int64, heads: [String: AuditChain.Head]) throws -> (records: [AuditEntryBody], unreadable: Int, problems: [String]) {
        // Seeded first: before this process's first record, the newest in the log (dated ahead
        // of the clock by an earlier vaultd, say) is past a horizon of now.
        if !times.withLock({ $0.seeded }) { seed(key: key) }
        // This process's records past its head are being written: not checked yet.
        let (horizon, own) = times.withLock { ($0.horizon(), $0.written) }
        var heads = heads
        heads[chain] = own
        var links: [AuditChain.Link] = []
        var records: [(time: Int64, entry: AuditEntryBody)] = []
        var unreadable = 0
        // The generations are read while this process cannot rotate them (`reopening`): read
        // across a rotation, audit.log.1 would be read after it became audit.log.2, and a follower
        // would get newer records while the ones of the file it skipped were never read.
        try reopening.withLock {
            for generation in stride(from: keep, through: 0, by: -1) {
                for line in (try contents(of: generation) ?? []).split(separator: 0x0A) {
                    guard let (entry, tag) = Self.open(line, key: key) else {
                        unreadable += 1
                        continue
                    }
                    if entry.chain != chain || (entry.seq ?? 0) <= (own?.seq ?? 0) { links.append(AuditChain.Link(entry: entry, tag: tag)) }
                    if let time = Timestamp.microseconds(rfc3339: entry.time), time > after, time <= horizon { records.append((time, entry)) }
                }
            }
        }
        // Stable: records another vaultd wrote under the same times keep their order in the files.
        let sorted = records.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element.entry)
        return (sorted, unreadable, AuditChain.problems(links, heads: heads))
    }

    /// The bytes of one generation of the log (its `last` bytes only, if given), never through a
    /// symbolic link; nil when it is absent or not a regular file.
    func contents(of generation: Int, last: Int? = nil) throws -> [UInt8]? {
        guard let fd = try? FileDescriptor.open(rotated(generation), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) else { return nil }
        return try fd.closeAfter { () throws -> [UInt8]? in
            let status = try fd.status()
            guard status.isRegularFile else { return nil }
            guard let last else { return try fd.readAll(limit: maxBytes * 2) }
            let count = Int(min(status.size, Int64(last)))
            return try fd.read(count: count, at: Int(status.size) - count)
        }
    }

    /// The record a line seals, and its tag (base64); nil when `key` does not open it.
    package static func open(_ line: ArraySlice<UInt8>, key: SecretBytes) -> (AuditEntryBody, tag: String)? {
        guard let raw = Data(base64Encoded: Data(line)).map(Array.init), raw.count > AESGCM.nonceSize + AESGCM.tagSize else { return nil }
        let box = AESGCM.SealedBox(
            nonce: Array(raw.prefix(AESGCM.nonceSize)), ciphertext: Array(raw.dropFirst(AESGCM.nonceSize).dropLast(AESGCM.tagSize)),
            tag: Array(raw.suffix(AESGCM.tagSize)))
        guard let plain = try? AESGCM.open(box, key: key, authenticating: associatedData),
              let entry = plain.withUnsafeBytes({ try? JSONDecoder().decode(AuditEntryBody.self, from: Data($0)) }) else { return nil }
        return (entry, linkTag(box.tag))
    }
}
