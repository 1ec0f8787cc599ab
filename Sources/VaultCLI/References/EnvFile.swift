#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// The variables of a dotenv file, for `vaultctl run --env-file`. One `KEY=VALUE` a line, lines
/// ending in LF or CRLF:
///
/// - blank lines and lines whose first non-blank character is `#` are skipped;
/// - an `export ` prefix is allowed; KEY is a shell name (`[A-Za-z_][A-Za-z0-9_]*`), blanks
///   around `=` are allowed;
/// - VALUE unquoted runs to the end of the line or to a blank followed by `#` (a comment), blanks
///   around it removed, `=` allowed inside;
/// - `'...'` is taken as written; `"..."` understands `\n`, `\t`, `\r`, `\"` and `\\` (any other
///   backslash stays as written); after the closing quote only blanks and a comment may follow;
///   a quote must close on its line;
/// - nothing is expanded (`$HOME` stays `$HOME`). A value may be a `vault://` reference.
///
/// Any other line is an error naming the file and line, and never the line's text (it may hold
/// a secret).
package struct EnvFile {
    /// The most an env file may hold.
    static let maxBytes = 1024 * 1024

    let path: String
    /// The variables in the order written; a later line for the same KEY wins when applied.
    package let variables: [(name: String, value: String)]

    /// Reads and parses `path`; throws `VaultError.invalidInput` naming the file (and line).
    static func load(_ path: String) throws -> EnvFile {
        let bytes: [UInt8]?
        do {
            let fd = try FileDescriptor.open(path, O_RDONLY)
            bytes = try fd.closeAfter { try fd.readAll(limit: maxBytes) }
        } catch let error as Errno {
            throw VaultError.invalidInput("cannot read the env file \(shown(path)): \(error)")
        }
        guard let bytes else { throw VaultError.invalidInput("the env file \(shown(path)) is larger than \(maxBytes / 1024) KiB") }
        return try EnvFile(path: path, bytes: bytes)
    }

    package init(path: String, bytes: [UInt8]) throws {
        self.path = path
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            throw VaultError.invalidInput("the env file \(Self.shown(path)) is not UTF-8 text (or holds a NUL byte)")
        }
        var variables: [(String, String)] = []
        for (index, line) in text.lines.enumerated() {
            do {
                if let variable = try Self.parse(line) { variables.append(variable) }
            } catch {
                throw VaultError.invalidInput("\(Self.shown(path)):\(index + 1): \(error.why)")
            }
        }
        self.variables = variables
    }

    struct LineError: Error {
        let why: String
    }

    /// One line's variable; nil for a blank line or a comment.
    static func parse(_ line: Substring) throws(LineError) -> (String, String)? {
        var rest = line.drop { $0 == " " || $0 == "\t" }
        if rest.isEmpty || rest.first == "#" { return nil }
        if rest.hasPrefix("export "), rest.dropFirst(7).contains("=") {
            rest = rest.dropFirst(7).drop { $0 == " " || $0 == "\t" }
        }
        let name = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        guard let first = name.first, !first.isNumber else {
            throw LineError(why: "expected KEY=VALUE, KEY a name of letters, digits and _ not starting with a digit")
        }
        rest = rest.dropFirst(name.count).drop { $0 == " " || $0 == "\t" }
        guard rest.first == "=" else { throw LineError(why: "expected '=' after \(name)") }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        let value: String
        switch rest.first {
        case "'":
            guard let close = rest.dropFirst().firstIndex(of: "'") else { throw LineError(why: "\(name)'s single quote does not close on its line") }
            value = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
        case "\"":
            var text = ""
            var index = rest.index(after: rest.startIndex)
            var closed = false
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                if character == "\"" { closed = true; break }
                if character == "\\", index < rest.endIndex {
                    let escaped = rest[index]
                    index = rest.index(after: index)
                    switch escaped {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    case "r": text.append("\r")
                    case "\"", "\\": text.append(escaped)
                    default: text.append("\\"); text.append(escaped)
                    }
                } else {
                    text.append(character)
                }
            }
            guard closed else { throw LineError(why: "\(name)'s double quote does not close on its line") }
            value = text
            rest = rest[index...]
        default:
            var end = rest.endIndex
            var index = rest.startIndex
            while index < rest.endIndex {
                if rest[index] == "#", index == rest.startIndex || [" ", "\t"].contains(rest[rest.index(before: index)]) {
                    end = index
                    break
                }
                index = rest.index(after: index)
            }
            var unquoted = rest[..<end]
            while let last = unquoted.last, last == " " || last == "\t" { unquoted = unquoted.dropLast() }
            return (String(name), String(unquoted))
        }
        let trailing = rest.drop { $0 == " " || $0 == "\t" }
        guard trailing.isEmpty || (trailing.first == "#" && trailing.count < rest.count) else {
            throw LineError(why: "only a comment may follow \(name)'s closing quote")
        }
        return (String(name), value)
    }

    static func shown(_ path: String) -> String { "'\(path.replacingControlCharacters())'" }
}
