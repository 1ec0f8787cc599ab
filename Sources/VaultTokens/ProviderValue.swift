import Foundation

/// The checks every value from a provider (or an imported session) passes before vault uses or
/// stores it: numbers finite and within sane ranges, strings within size limits, tokens within
/// RFC 6750's `b64token` characters. A value that fails is a `ProviderValue.Problem` naming the
/// field; nothing here converts a number it has not checked.
public enum ProviderValue {
    /// A value that failed its check: `field` is the JSON name, `problem` says what is wrong
    /// (never the value itself: it may be a token).
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: String
        public var problem: String
        public var description: String { "'\(field)' \(problem)" }
    }

    /// The longest access or refresh token accepted (Firebase ID tokens are about 1 KiB; large
    /// JWTs a few KiB).
    public static let maximumTokenLength = 16 * 1024
    /// The longest user id, email, token type, user code, ... accepted.
    public static let maximumTextLength = 1024
    /// The longest scope or URL accepted.
    public static let maximumLongTextLength = 4096
    /// Lifetimes (expires_in): 0 seconds to 10 years.
    public static let lifetimes: ClosedRange<Double> = 0...(10 * 366 * 86400)
    /// Absolute times (expires_at, unix seconds): 2000-01-01 to 2100-01-01.
    public static let unixTimes: ClosedRange<Double> = 946_684_800...4_102_444_800
    /// Device grant polling interval (RFC 8628 §3.2; default 5 s).
    public static let deviceIntervals: ClosedRange<Double> = 0...300
    /// Device code lifetime (RFC 8628 §3.2).
    public static let deviceLifetimes: ClosedRange<Double> = 1...86400

    /// A number of seconds within `range`: a JSON number, or a string of plain decimal digits
    /// (Firebase sends "3600"); nil when absent (or JSON null).
    public static func seconds(_ value: Any?, field: String, within range: ClosedRange<Double>) throws(Problem) -> Double? {
        guard let value, !(value is NSNull) else { return nil }
        let number: Double
        if let text = value as? String {
            guard isPlainDecimal(text), let parsed = Double(text) else {
                throw Problem(field: field, problem: "is not a number of seconds")
            }
            number = parsed
        } else if let parsed = value as? NSNumber, !isBoolean(parsed) {
            number = parsed.doubleValue
        } else {
            throw Problem(field: field, problem: "is not a number of seconds")
        }
        return try check(number, field: field, within: range)
    }

    /// A number already decoded (a stored record's `expires_at`): finite and within `range`.
    @discardableResult
    public static func check(_ number: Double, field: String, within range: ClosedRange<Double>) throws(Problem) -> Double {
        guard number.isFinite else { throw Problem(field: field, problem: "is not a finite number") }
        guard range.contains(number) else {
            throw Problem(field: field, problem: "is out of range (\(format(range.lowerBound)) to \(format(range.upperBound)))")
        }
        return number
    }

    /// An access or refresh token: 1 to `maximumTokenLength` characters of RFC 6750's b64token
    /// (`ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/"`, then `=` padding only).
    public static func token(_ value: Any?, field: String) throws(Problem) -> String? {
        guard let value, !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw Problem(field: field, problem: "is not a string") }
        try checkToken(text, field: field)
        return text
    }

    public static func checkToken(_ text: String, field: String) throws(Problem) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw Problem(field: field, problem: "is empty") }
        guard bytes.count <= maximumTokenLength else { throw Problem(field: field, problem: "is longer than \(maximumTokenLength) bytes") }
        var padding = false
        for byte in bytes {
            if byte == UInt8(ascii: "=") { padding = true; continue }
            guard !padding, isB64TokenCharacter(byte) else {
                throw Problem(field: field, problem: "has characters outside RFC 6750's b64token set")
            }
        }
        guard bytes[0] != UInt8(ascii: "=") else { throw Problem(field: field, problem: "has characters outside RFC 6750's b64token set") }
    }

    /// A token type ("Bearer", "bearer", "DPoP"): letters, digits, "-", "_", at most 64.
    public static func tokenType(_ value: Any?, field: String) throws(Problem) -> String? {
        guard let value, !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw Problem(field: field, problem: "is not a string") }
        let allowed = text.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        guard !text.isEmpty, text.utf8.count <= 64, allowed else { throw Problem(field: field, problem: "is not a token type (letters, digits, '-', '_')") }
        return text
    }

    /// Text shown to people or stored beside the tokens (user id, email, scope, user code, URL):
    /// a string of at most `limit` bytes without control characters.
    public static func text(_ value: Any?, field: String, limit: Int = maximumTextLength) throws(Problem) -> String? {
        guard let value, !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw Problem(field: field, problem: "is not a string") }
        try checkText(text, field: field, limit: limit)
        return text
    }

    public static func checkText(_ text: String, field: String, limit: Int = maximumTextLength) throws(Problem) {
        guard text.utf8.count <= limit else { throw Problem(field: field, problem: "is longer than \(limit) bytes") }
        guard !text.unicodeScalars.contains(where: isControl) else { throw Problem(field: field, problem: "contains control characters") }
    }

    /// Provider text (error_description, message, an error code) made safe for an error
    /// message: control and format characters become spaces, runs of white space one space, at
    /// most `limit` characters.
    public static func sanitized(_ text: String, limit: Int = 200) -> String {
        var result = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            let space = isControl(scalar) || scalar.properties.isWhitespace
            if space {
                if !lastWasSpace && !result.isEmpty { result.append(" ") }
                lastWasSpace = true
                continue
            }
            lastWasSpace = false
            result.unicodeScalars.append(scalar)
            if result.unicodeScalars.count >= limit {
                result.append("…")
                break
            }
        }
        return lastWasSpace ? String(result.dropLast()) : result
    }

    /// C0, DEL, C1, and format characters (bidi overrides, zero-width joiners, ...).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format
            || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator
    }

    static func isB64TokenCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "-._~+/".utf8.contains(byte)
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Digits with at most one decimal point and at most 15 digits before it: what Firebase's
    /// string lifetimes look like, and nothing Double(_:) would read as inf, nan or 1e20.
    static func isPlainDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, (1...15).contains(whole.count) else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
    }

    /// JSONSerialization gives booleans as NSNumber (objCType "c"; numbers are "i", "q" or "d"):
    /// `true` must not pass for 1 second.
    static func isBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    static func format(_ number: Double) -> String { String(format: "%.0f", number) }
}
