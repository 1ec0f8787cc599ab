import VaultCore

/// Splits a byte stream into newline-terminated lines, refusing any line longer than `limit`
/// before it is parsed (the size cap is checked as bytes arrive, not after).
///
/// A line may hold a secret in transit, so the storage is its own allocation, never an Array's
/// (whose growth would free the old storage unwiped): each line's bytes are wiped as soon as it
/// is handed out, growing allocates, copies, wipes and frees the old storage, moving the unread
/// rest to the front wipes what it leaves behind, and `clear` and `deinit` wipe the whole
/// capacity. Consuming a line costs only its own length (no shifting of the rest). The lines it
/// returns are the caller's to wipe.
public struct LineBuffer: ~Copyable, @unchecked Sendable {
    // @unchecked: the storage is owned by this noncopyable value and reached only through it.

    public enum Next: Equatable, Sendable {
        case line([UInt8])
        case needMore
        case tooLong
    }

    public let limit: Int
    private var storage: UnsafeMutableRawBufferPointer?
    /// The unread bytes are `start..<end`; those before `start + scanned` hold no newline.
    private var start = 0
    private var end = 0
    private var scanned = 0

    public init(limit: Int) { self.limit = limit }

    deinit {
        if let storage {
            SecretBytes.wipe(storage)
            storage.deallocate()
        }
    }

    /// The bytes allocated (for tests: it grows only as needed).
    public var capacity: Int { storage?.count ?? 0 }
    /// Bytes searched for a newline, moved and copied so far: what consuming lines costs, for
    /// tests that check it stays linear in what was appended (counted, not timed).
    public private(set) var work = 0

    public var isEmpty: Bool { start == end }

    public mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        reserve(bytes.count)
        guard let storage else { return }
        UnsafeMutableRawBufferPointer(rebasing: storage[end..<(end + bytes.count)]).copyMemory(from: bytes)
        end += bytes.count
    }

    /// Room for `count` more bytes after `end`.
    private mutating func reserve(_ count: Int) {
        let pending = end - start
        let capacity = self.capacity
        if end + count <= capacity { return }
        if let storage, pending + count <= capacity {
            // Move the unread rest to the front and wipe the bytes it leaves behind.
            if pending > 0, let base = storage.baseAddress { base.copyMemory(from: base + start, byteCount: pending) }
            work += pending
            SecretBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: storage[pending..<end]))
        } else {
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(pending + count, 2 * capacity, 4096), alignment: 16)
            grown.initializeMemory(as: UInt8.self, repeating: 0)
            if let storage {
                if pending > 0 { UnsafeMutableRawBufferPointer(rebasing: grown[0..<pending]).copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[start..<end])) }
                work += pending
                SecretBytes.wipe(storage)
                storage.deallocate()
            }
            storage = grown
        }
        start = 0
        end = pending
    }

    /// The next complete line (without its newline, and without a trailing CR).
    public mutating func next() -> Next {
        guard let storage, start < end else { return .needMore }
        let unread = UnsafeRawBufferPointer(rebasing: storage[start..<end])
        guard let found = unread[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
            work += unread.count - scanned
            scanned = unread.count
            // A CR just buffered may end a line of exactly `limit` bytes: the CR does not count.
            let endsInCR = unread.last == UInt8(ascii: "\r")
            return unread.count > limit + (endsInCR ? 1 : 0) ? .tooLong : .needMore
        }
        let newline = found - unread.startIndex
        work += newline + 1 - scanned
        var length = newline
        if length > 0 && unread[unread.startIndex + length - 1] == UInt8(ascii: "\r") { length -= 1 }
        if length > limit { return .tooLong }
        let line = Array(UnsafeRawBufferPointer(rebasing: unread.prefix(length)))
        SecretBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start + newline + 1)]))
        start += newline + 1
        scanned = 0
        if start == end {
            start = 0
            end = 0
        }
        return .line(line)
    }

    /// Wipes and frees what is buffered (it may hold a secret in transit).
    public mutating func clear() {
        if let storage {
            SecretBytes.wipe(storage)
            storage.deallocate()
        }
        storage = nil
        start = 0
        end = 0
        scanned = 0
    }

    /// Calls `body` with the whole storage, read and unread, for tests that check the wiping.
    public func withStorage<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(storage.map(UnsafeRawBufferPointer.init) ?? UnsafeRawBufferPointer(start: nil, count: 0))
    }
}
