#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// JSON encoding and decoding of protocol lines, shared by daemon and clients.
public enum MessageCodec {
    /// The largest request line vaultd accepts (bytes, without the newline).
    public static let maxRequestBytes = 256 * 1024
    /// The largest response line a client accepts.
    public static let maxResponseBytes = 4 * 1024 * 1024

    /// The line (with its newline) for `value`. Secrets are spliced in after `JSONEncoder` ran
    /// (`SecretSplice`), into one buffer of exactly the line's size: the caller wipes it after
    /// sending, and no other copy of a secret was made.
    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        if let response = value as? ResponseLine, let line = ItemResponseEncoder.encode(response) { return line }
        return encodedLine(value) ?? encodingFailed
    }

    /// `encode`, or nil when `value` cannot be encoded (for output that is not a response).
    public static func encodedLine<T: Encodable>(_ value: T) -> [UInt8]? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let splice = SecretSplice()
        encoder.userInfo[SecretSplice.userInfoKey] = splice
        // Encoding these plain structs cannot fail; a failure would be a programming error.
        guard let encoded = try? Array(encoder.encode(value)) else { return nil }
        if splice.isEmpty { return encoded + [UInt8(ascii: "\n")] }
        return splice.splice(encoded)
    }

    /// A request's line (with its newline): a plain `get` by `GetRequestEncoder`, a
    /// `resolve_credential` by `CredentialRequestEncoder`, anything else as `encodedLine` writes
    /// it; nil when it cannot be encoded.
    public static func requestLine(_ request: RequestLine) -> [UInt8]? {
        GetRequestEncoder.encode(request) ?? CredentialRequestEncoder.encode(request) ?? encodedLine(request)
    }

    private static var encodingFailed: [UInt8] {
        Array(#"{"error":{"code":"internal","message":"encoding failed"},"id":null,"ok":false}"#.utf8) + [UInt8(ascii: "\n")]
    }

    /// Decodes one line, turning JSON and type errors into `VaultError.invalidInput` that names
    /// the field, so a client learns what to fix. For requests and responses, the secret fields
    /// are first read into `SecretBytes` and blanked in `line` (`SecretFields`), which therefore
    /// holds no secret afterwards; the caller still wipes it (a nested or malformed field may).
    public static func decode<T: Decodable>(_ type: T.Type, from line: inout [UInt8]) throws -> T {
        if T.self == RequestLine.self, let request = GetRequestDecoder.decode(line) as? T { return request }
        if T.self == ResponseLine.self, let response = ItemResponseDecoder.decode(line) as? T { return response }
        return try decodeGenerally(type, from: &line)
    }

    /// `decode` through `JSONDecoder`, for every line the hot paths leave alone.
    package static func decodeGenerally<T: Decodable>(_ type: T.Type, from line: inout [UInt8]) throws -> T {
        do {
            let decoder = JSONDecoder()
            if let carrier = T.self as? SecretCarrying.Type {
                decoder.userInfo[SecretFields.userInfoKey] = try SecretFields.extract(
                    from: &line, path: carrier.secretPath, keys: carrier.secretKeys)
            }
            // JSONDecoder looks inside a string only when something decodes it, so a field nobody
            // reads could carry malformed UTF-8 or raw control bytes: refused here, whatever field.
            guard line.withUnsafeBytes({ UTF8Validation.isValid($0) && !$0.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } }) else {
                throw VaultError.invalidInput("malformed JSON: a line is UTF-8 text without raw control characters")
            }
            return try decoder.decode(type, from: Data(line))
        } catch let error as DecodingError {
            throw VaultError.invalidInput(describe(error))
        } catch let error as VaultError {
            // A payload's own check (a missing secret, an unknown op, ...): already a sentence.
            throw error
        } catch {
            throw VaultError.invalidInput("malformed JSON")
        }
    }

    /// Decodes a copy of `line`, wiped afterwards; `line` itself is the caller's to wipe.
    public static func decode<T: Decodable>(_ type: T.Type, from line: [UInt8]) throws -> T {
        var copy = line
        defer { copy.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        return try decode(type, from: &copy)
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            let joined = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return joined.isEmpty ? "the request" : "'\(joined)'"
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "field \(path(context.codingPath)) must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "field \(path(context.codingPath)) must be \(typeName(type)), not null"
        case .keyNotFound(let key, _):
            return "missing field '\(key.stringValue)'"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "malformed JSON: a request is one JSON object on one line" }
            return "field \(path(context.codingPath)) is invalid: \(context.debugDescription)"
        @unknown default:
            return "malformed request"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        default: "of type \(type)"
        }
    }
}
