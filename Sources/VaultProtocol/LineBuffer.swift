import VaultCore

/// Splits a byte stream into newline-terminated lines, refusing any line longer than `limit`
/// before it is parsed (the size cap is checked as bytes arrive, not after). Bytes it lets go of
/// are wiped (a line may hold a secret in transit); the lines it returns are the caller's to wipe.
public struct LineBuffer: Sendable {
    public enum Next: Equatable, Sendable {
        case line([UInt8])
        case needMore
        case tooLong
    }

    public let limit: Int
    private var buffer: [UInt8] = []
    private var scanned = 0

    public init(limit: Int) { self.limit = limit }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }
    public mutating func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    public var isEmpty: Bool { buffer.isEmpty }

    /// The next complete line (without its newline, and without a trailing CR).
    public mutating func next() -> Next {
        if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
            if newline > limit { return .tooLong }
            var line = Array(buffer[..<newline])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            // A fresh array for the rest, and the old one wiped whole: removing the prefix in
            // place would leave copies of the bytes in its spare capacity.
            let rest = Array(buffer[(newline + 1)...])
            buffer.withUnsafeMutableBytes { SecretBytes.wipe($0) }
            buffer = rest
            scanned = 0
            return .line(line)
        }
        scanned = buffer.count
        return buffer.count > limit ? .tooLong : .needMore
    }

    /// Wipes and drops what is buffered (it may hold a secret in transit).
    public mutating func clear() {
        buffer.withUnsafeMutableBytes { SecretBytes.wipe($0) }
        buffer.removeAll()
        scanned = 0
    }
}
