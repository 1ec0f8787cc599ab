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

    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail; a failure would be a programming error.
        var bytes = Array((try? encoder.encode(value)) ?? Data(#"{"ok":false,"error":{"code":"internal","message":"encoding failed"}}"#.utf8))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Decodes one line, turning JSON and type errors into `VaultError.invalidInput` that names
    /// the field, so a client learns what to fix.
    public static func decode<T: Decodable>(_ type: T.Type, from line: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(line))
        } catch let error as DecodingError {
            throw VaultError.invalidInput(describe(error))
        } catch let error as VaultError {
            // A payload's own check (a missing secret, an unknown op, ...): already a sentence.
            throw error
        } catch {
            throw VaultError.invalidInput("malformed JSON")
        }
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
