import VaultCore

extension GitCredential {
    /// The longest line git writes or reads (git-credential(1)).
    static let maxLineBytes = 65535
    /// The whole input a helper accepts: a few dozen lines of at most `maxLineBytes`.
    static let maxInputBytes = 1 << 20

    /// Parses git's `key=value` lines strictly, up to the first blank line or the end. Refuses a
    /// NUL byte, a line over 65535 bytes, a line without `=`, an empty key, text that is not
    /// UTF-8 (confidential values may be any bytes), a `protocol` that is not a URL scheme and a `password_expiry_utc` that is not a
    /// number. Messages name the line and the key, never a value (it may be a password).
    package init(parsing input: SecretBytes) throws(HelperFailure) {
        self.init()
        var failure: HelperFailure?
        input.withUnsafeBytes { bytes in
            var start = 0
            var lineNumber = 0
            while start < bytes.count {
                lineNumber += 1
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                var lineEnd = end
                if lineEnd > start && bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                let line = UnsafeRawBufferPointer(rebasing: bytes[start..<lineEnd])
                start = end + 1
                if line.isEmpty { break }
                do throws(HelperFailure) {
                    try add(line, number: lineNumber)
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    private mutating func add(_ line: UnsafeRawBufferPointer, number: Int) throws(HelperFailure) {
        guard line.count <= Self.maxLineBytes else { throw HelperFailure("input line \(number) is over \(Self.maxLineBytes) bytes") }
        guard !line.contains(0) else { throw HelperFailure("input line \(number) contains a NUL byte") }
        guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
            throw HelperFailure("input line \(number) is not key=value")
        }
        guard equals > 0, let key = String(validating: line[..<equals], as: UTF8.self) else {
            throw HelperFailure("input line \(number) has an empty key or one that is not UTF-8")
        }
        let rawValue = UnsafeRawBufferPointer(rebasing: line[(equals + 1)...])
        if Self.secretKeys.contains(key) {
            secrets[key] = SecretBytes(copying: rawValue)
            return
        }
        guard let value = String(validating: rawValue, as: UTF8.self) else {
            throw HelperFailure("the value of '\(key)' (input line \(number)) is not UTF-8")
        }
        if key.hasSuffix("[]") {
            let name = String(key.dropLast(2))
            if value.isEmpty { lists[name] = nil } else { lists[name, default: []].append(value) }
            return
        }
        switch key {
        case "protocol":
            guard Self.isScheme(value) else { throw HelperFailure("'protocol' (input line \(number)) is not a URL scheme") }
        case "password_expiry_utc":
            guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw HelperFailure("'password_expiry_utc' (input line \(number)) is not a number of seconds since 1970")
            }
        default:
            break
        }
        values[key] = value
    }

    /// RFC 3986's scheme: a letter, then letters, digits, `+`, `-` or `.`.
    static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
    }
}
