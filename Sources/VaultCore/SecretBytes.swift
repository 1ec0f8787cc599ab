import CVaultShims
#if canImport(Glibc)
import Glibc
#endif

/// Bytes that must not linger: keys, passphrases, secrets.
///
/// The storage is wiped with glibc's `explicit_bzero` (which the optimizer may not drop) over its
/// whole capacity when the last copy is released, equality runs in constant time, and the value
/// never prints itself.
/// Key material can ask for `mlock`ed memory so it is never written to swap.
public struct SecretBytes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    private final class Storage: @unchecked Sendable {
        // Written only inside init; shared read-only afterwards, hence @unchecked Sendable.
        let base: UnsafeMutableRawPointer
        let capacity: Int
        let count: Int
        let isLocked: Bool

        init(count: Int, lockInMemory: Bool) {
            self.count = count
            // Never a zero-sized allocation, so `base` is always valid to cleanse.
            capacity = max(count, 1)
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
            isLocked = lockInMemory && mlock(base, capacity) == 0
        }

        deinit {
            explicit_bzero(base, capacity)
            if isLocked { munlock(base, capacity) }
            base.deallocate()
        }
    }

    private let storage: Storage

    /// Allocates `count` zeroed bytes and lets `initializer` fill them in place.
    public init(
        count: Int, lockInMemory: Bool = false,
        _ initializer: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows {
        precondition(count >= 0)
        storage = Storage(count: count, lockInMemory: lockInMemory)
        try initializer(UnsafeMutableRawBufferPointer(start: storage.base, count: count))
    }

    public init(copying bytes: UnsafeRawBufferPointer, lockInMemory: Bool = false) {
        self.init(count: bytes.count, lockInMemory: lockInMemory) { buffer in
            if bytes.count > 0 { buffer.copyMemory(from: bytes) }
        }
    }

    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        self.init(count: bytes.count) { buffer in _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
    }

    /// The UTF-8 bytes of `string`. The string itself is not wiped: prefer byte sources when there is a choice.
    public init(utf8 string: String) {
        var copy = string
        self = copy.withUTF8 { SecretBytes(copying: UnsafeRawBufferPointer($0)) }
    }

    public static let empty = SecretBytes(count: 0) { _ in }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.count == 0 }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
    }

    /// The bytes as a String when they are valid UTF-8, nil otherwise.
    public var utf8String: String? {
        withUnsafeBytes { buffer in
            String(validating: buffer.bindMemory(to: UInt8.self), as: UTF8.self)
        }
    }

    /// An ordinary array copy, for tests and for protocols that need one; the copy is not wiped.
    public var unprotectedBytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Constant-time comparison: the time taken depends only on the lengths.
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.count == 0 { return true }
        return vault_constant_time_equal(lhs.storage.base, rhs.storage.base, lhs.count) != 0
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "SecretBytes(<redacted>, \(count) bytes)" }
}

extension SecretBytes {
    /// Wipes a scratch buffer that held secret bytes, in a way the optimizer cannot drop.
    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }
}
