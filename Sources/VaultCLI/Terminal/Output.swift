#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultClient
import VaultCore
import VaultSystem

/// Writing to stdout and stderr without Foundation. Text goes out with its control characters
/// replaced (`line`, `error`, `table`): much of it comes from the network (provider messages,
/// device codes, user names), and an escape sequence must never reach a terminal. Secrets go out
/// exactly as stored (`write`, `secretLine`).
enum Output {
    static var stdoutIsTerminal: Bool { Terminal.isTerminal(1) }

    static func write(_ bytes: [UInt8], to fd: Int32 = 1) {
        try? FileDescriptor(rawValue: fd).writeAll(bytes)
    }

    /// Writes `secret` from its own storage: no copy of it is made on the way to stdout.
    static func write(_ secret: SecretBytes, to fd: Int32 = 1) {
        secret.withUnsafeBytes { bytes in
            if !bytes.isEmpty { try? FileDescriptor(rawValue: fd).writeAll(bytes) }
        }
    }

    static func line(_ text: String) { write(Array((text.replacingControlCharacters(keepingTabsAndNewlines: true) + "\n").utf8)) }

    static func error(_ text: String) {
        write(Array(("vaultctl: " + text.replacingControlCharacters(keepingTabsAndNewlines: true) + "\n").utf8), to: 2)
    }

    /// A secret (a token, or a shell line quoting one) and a newline, byte for byte.
    static func secretLine(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        write(bytes)
        bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) }
    }

    /// Columns padded to their widest cell on a terminal; tab-separated (no header) for scripts.
    /// Written in blocks of about 64 KiB, not a `write` per row: a listing of 10,000 items was
    /// 10,000 system calls and a quarter of `vaultctl list`'s time.
    /// `rows` is read once when stdout is not a terminal (each row made, written and released in
    /// turn: a listing of 100,000 items is never held as cells twice).
    static func table<Rows: Sequence>(header: [String], rows: Rows) where Rows.Element == [String] {
        // Before joining: a tab or newline inside a cell would split it for scripts. The joined
        // line needs no second pass: its only control characters are the tabs and newline put there.
        var block = TableBlock()
        if !stdoutIsTerminal {
            for row in rows { block.append(row.map { $0.replacingControlCharacters() }, separator: "\t", widths: nil) }
            block.flush()
            return
        }
        let all = [header.map { $0.replacingControlCharacters() }] + rows.map { $0.map { $0.replacingControlCharacters() } }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all { block.append(row, separator: "  ", widths: widths) }
        block.flush()
    }

    /// The bytes of a table's rows, written to stdout whenever they pass 64 KiB.
    private struct TableBlock {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(Self.size + 4096) }

        static let size = 64 * 1024

        /// `row`'s cells joined by `separator`; padded to `widths` (in characters) but the last.
        mutating func append(_ row: [String], separator: String, widths: [Int]?) {
            for (index, cell) in row.enumerated() {
                if index > 0 { bytes.append(contentsOf: separator.utf8) }
                bytes.append(contentsOf: cell.utf8)
                if let widths, index < row.count - 1, index < widths.count {
                    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, widths[index] - cell.count)))
                }
            }
            bytes.append(0x0A)
            if bytes.count >= Self.size { flush() }
        }

        mutating func flush() {
            if !bytes.isEmpty { Output.write(bytes) }
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// One JSON value on one line, keys sorted (the documented shapes, docs/protocol.md); a
    /// secret in it is spliced into the one buffer that is written and then wiped.
    static func json<T: Encodable>(_ value: T) {
        guard var bytes = VaultJSON.line(value) else { return error("could not encode the answer as JSON") }
        write(bytes)
        bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) }
    }

    /// A time as the protocol writes it: RFC 3339 UTC with milliseconds.
    static func time(_ date: Date) -> String { Timestamp.rfc3339(seconds: date.timeIntervalSince1970) }
}
