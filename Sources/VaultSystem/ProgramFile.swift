#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a program file is, told from its first 256 bytes: a compiled program (ELF), a script
/// with the words of its `#!` line, or neither (also when it cannot be opened or read). A `#!`
/// line longer than those bytes is cut there, as the kernel cuts it at its own limit.
public enum ProgramFile: Equatable, Sendable {
    case compiled
    /// The `#!` line's words (split at spaces and tabs); empty when the line names nothing.
    case script([String])
    case other

    public static func of(_ path: String) -> ProgramFile {
        kind(ofHead: head(of: path))
    }

    /// The kind of a file whose first bytes are `head`.
    public static func kind<Bytes: Collection<UInt8>>(ofHead head: Bytes) -> ProgramFile {
        if head.starts(with: [0x7F, 0x45, 0x4C, 0x46]) { return .compiled }
        guard head.starts(with: [0x23, 0x21]) else { return .other }
        let line = String(decoding: head.dropFirst(2).prefix { $0 != 0x0A }, as: UTF8.self)
        return .script(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))
    }

    /// Up to the first 256 bytes of the file at `path` (none when it cannot be opened or read).
    /// O_NONBLOCK: a FIFO put where a program was expected gives nothing instead of a hang.
    private static func head(of path: String) -> [UInt8] {
        guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK) else { return [] }
        defer { fd.close() }
        var head = [UInt8](repeating: 0, count: 256)
        guard let count = try? head.withUnsafeMutableBytes({ try fd.read(into: $0) }) else { return [] }
        return Array(head.prefix(count))
    }
}
