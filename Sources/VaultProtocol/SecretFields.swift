#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// The secret-bearing string fields of one JSON object in a line (a request's `secret` and
/// `passphrase`, a response's `result.item.secret`), read straight from the line into
/// `SecretBytes` and blanked out of it before the rest goes to `JSONDecoder`, so no `String` or
/// `Data` copy of a secret is ever made. Each value becomes `""` followed by spaces: the line
/// stays valid JSON of the same length.
///
/// Only the object at `path` is searched (the top-level object for `[]`); a key of that name
/// inside any other object or array is neither taken nor blanked. The payload decoders take the
/// values from the decoder's `userInfo` (see `MessageCodec.decode`).
public struct SecretFields: Sendable {
    public enum Field: Sendable {
        case string(SecretBytes)
        case null
        /// A number, boolean, object or array: a type error when the payload reads it.
        case notString
    }

    /// Keys of the objects leading to the one that was searched, from the top level.
    public let path: [String]
    public private(set) var fields: [String: Field] = [:]

    static let userInfoKey = CodingUserInfoKey(rawValue: "vault.secretFields")!

    /// The fields a request's payloads read as secrets (docs/protocol.md).
    static let requestKeys: Set<String> = ["secret", "secret_b64", "passphrase", "new_passphrase", "password", "session", "new_secret"]

    /// Reads and blanks `keys` of the object at `path` in `line`. Throws `VaultError.invalidInput`
    /// for a value that is not a valid JSON string (it is blanked all the same), for a key given
    /// twice, and, after wiping the whole line, for a line that is not one JSON object (an array,
    /// two objects run together, anything after the object) or whose structure breaks off:
    /// `JSONDecoder` would refuse those lines too, but only after copying them, secrets and all.
    public static func extract(from line: inout [UInt8], path: [String] = [], keys: Set<String>) throws -> SecretFields {
        try line.withUnsafeMutableBytes { try extract(from: $0, path: path, keys: keys) }
    }

    public static func extract(from line: UnsafeMutableRawBufferPointer, path: [String] = [], keys: Set<String>) throws -> SecretFields {
        var scanner = Scanner(bytes: line, keys: keys, result: SecretFields(path: path))
        do {
            scanner.skipWhitespace()
            try scanner.object(path: path[...])
            scanner.skipWhitespace()
            guard scanner.peek == nil else { throw Broken() }
        } catch {
            SecretBytes.wipe(line)
            throw VaultError.invalidInput("malformed JSON: a line is one JSON object")
        }
        if let problem = scanner.problem { throw VaultError.invalidInput(problem) }
        return scanner.result
    }

    /// The string `key` holds; nil when it is absent or null. Throws for any other type.
    public func string(_ key: String) throws(VaultError) -> SecretBytes? {
        switch fields[key] {
        case .string(let value): value
        case .null, nil: nil
        case .notString: throw VaultError.invalidInput("field '\(key)' must be a string")
        }
    }

    /// The fields `MessageCodec` read from the line `decoder` decodes.
    static func of(_ decoder: Decoder) throws(VaultError) -> SecretFields {
        guard let fields = decoder.userInfo[userInfoKey] as? SecretFields else {
            throw VaultError.invalidInput("secret fields are read only through MessageCodec.decode")
        }
        return fields
    }

    /// The structural error that stops the scan (the line is then wiped whole).
    struct Broken: Error {}

    private struct Scanner {
        let bytes: UnsafeMutableRawBufferPointer
        let keys: Set<String>
        var result: SecretFields
        var index = 0
        /// The first problem with a field, thrown once every secret is blanked.
        var problem: String?

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            // A UTF-8 byte order mark before the object is tolerated, as JSONDecoder does.
            if index == 0 && bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(Broken) {
            guard peek == byte else { throw Broken() }
            index += 1
            skipWhitespace()
        }

        /// The object at `index`; `path` holds the keys still to descend through.
        mutating func object(path: ArraySlice<String>) throws(Broken) {
            var seen: Set<String> = []
            try expect(UInt8(ascii: "{"))
            if peek == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                let key = try self.key()
                try expect(UInt8(ascii: ":"))
                let duplicate = !seen.insert(key).inserted
                if path.isEmpty && keys.contains(key) {
                    try secretValue(key)
                    if duplicate { note("field '\(key)' appears more than once; give it once") }
                } else if let next = path.first, key == next, peek == UInt8(ascii: "{") {
                    if duplicate { note("field '\(key)' appears more than once; give it once") }
                    try object(path: path.dropFirst())
                } else {
                    try skipValue()
                }
                skipWhitespace()
                if peek == UInt8(ascii: "}") {
                    index += 1
                    return
                }
                try expect(UInt8(ascii: ","))
            }
        }

        mutating func note(_ text: String) {
            if problem == nil { problem = text }
        }

        /// A key: decoded, so `"sec\u0072et"` is `secret` here as it is to JSONDecoder.
        mutating func key() throws(Broken) -> String {
            guard peek == UInt8(ascii: "\"") else { throw Broken() }
            let raw = UnsafeRawBufferPointer(bytes)
            guard let (end, count) = try? JSONString.decode(raw, from: index + 1) else { throw Broken() }
            var key = [UInt8](repeating: 0, count: count)
            key.withUnsafeMutableBytes { output in _ = try? JSONString.decode(raw, from: index + 1, into: output) }
            index = end + 1
            skipWhitespace()
            return String(decoding: key, as: UTF8.self)
        }

        mutating func secretValue(_ key: String) throws(Broken) {
            guard peek == UInt8(ascii: "\"") else {
                let isNull = index + 4 <= bytes.count && bytes[index] == UInt8(ascii: "n") && bytes[index + 1] == UInt8(ascii: "u")
                    && bytes[index + 2] == UInt8(ascii: "l") && bytes[index + 3] == UInt8(ascii: "l")
                if result.fields[key] == nil { result.fields[key] = isNull ? .null : .notString }
                let start = index
                try skipValue()
                // Blanked too (the payload refuses it): an array of numbers can hold a secret's
                // bytes. `null` and spaces, or `0` where that does not fit: the same length.
                if !isNull {
                    let blank = Array((index - start >= 4 ? "null" : "0").utf8)
                    for position in start..<index { bytes[position] = position - start < blank.count ? blank[position - start] : 0x20 }
                }
                return
            }
            let start = index
            let raw = UnsafeRawBufferPointer(bytes)
            let end: Int
            do {
                let (closing, count) = try JSONString.decode(raw, from: start + 1)
                // The second pass writes what the first checked: it cannot fail.
                let value = SecretBytes(count: count) { output in _ = try? JSONString.decode(raw, from: start + 1, into: output) }
                // The first of duplicates, as JSONDecoder would take; a duplicate is refused anyway.
                if result.fields[key] == nil { result.fields[key] = .string(value) }
                end = closing
            } catch .invalid {
                guard let closing = JSONString.end(raw, from: start + 1) else { throw Broken() }
                note("field '\(key)' is not a valid JSON string (a bad escape, a lone surrogate, a control character or malformed UTF-8)")
                end = closing
            } catch {
                throw Broken()
            }
            // Blank the value: `""` and spaces, the same length.
            bytes[start] = UInt8(ascii: "\"")
            bytes[start + 1] = UInt8(ascii: "\"")
            for position in (start + 2)..<(end + 1) { bytes[position] = 0x20 }
            index = end + 1
        }

        /// Any value, without looking inside strings or checking nesting (JSONDecoder checks
        /// the rest of the line): iterative, so deep nesting cannot exhaust the stack.
        mutating func skipValue() throws(Broken) {
            var depth = 0
            let start = index
            while let byte = peek {
                switch byte {
                case UInt8(ascii: "\""):
                    guard let end = JSONString.end(UnsafeRawBufferPointer(bytes), from: index + 1) else { throw Broken() }
                    index = end + 1
                    if depth == 0 { return }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    index += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    // At depth 0 this closes the enclosing object: the end of a number or literal.
                    if depth == 0 {
                        guard index > start else { throw Broken() }
                        return
                    }
                    depth -= 1
                    index += 1
                    if depth == 0 { return }
                case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                    if depth == 0 {
                        guard index > start else { throw Broken() }
                        return
                    }
                    index += 1
                default:
                    index += 1
                }
            }
            throw Broken()
        }
    }
}
