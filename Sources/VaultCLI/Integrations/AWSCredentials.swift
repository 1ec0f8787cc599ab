#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// AWS credentials in the JSON shape of `credential_process`: `AccessKeyId`, `SecretAccessKey`,
/// optionally `SessionToken` and `Expiration` (RFC 3339), and `Version` (only 1). `vaultctl aws set`
/// parses what it reads with `init(json:)` and stores `stored`; `vaultctl aws credential-process`
/// parses the stored item again (so a hand-edited one is checked too) and prints `processOutput`.
/// Every message names a field, never a value, so that no secret reaches a terminal or an SDK's
/// error text.
struct AWSCredentials: Equatable {
    var accessKeyID: String
    var secretAccessKey: String
    var sessionToken: String?
    /// Milliseconds since the Unix epoch; nil for long-lived keys.
    var expiration: Int64?

    static let fields = ["AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration", "Version"]

    /// Parses and checks `json`; throws `VaultError.invalidInput` saying which field is wrong.
    init(json: SecretBytes) throws {
        let data = json.withUnsafeBytes { Data($0) }
        do {
            self = try JSONDecoder().decode(Wire.self, from: data).credentials
        } catch let error as VaultError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            throw Self.problem("\(context.codingPath[0].stringValue) must be a \(context.codingPath[0].stringValue == "Version" ? "number" : "string")")
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            throw Self.problem("\(context.codingPath[0].stringValue) has a value out of range")
        } catch DecodingError.typeMismatch, DecodingError.valueNotFound {
            throw Self.problem("the input must be one JSON object")
        } catch {
            // The decoder's own text can quote the input around the fault, so it is not shown.
            throw Self.problem("the input is not valid JSON (UTF-8)")
        }
    }

    init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Int64? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// True when the credentials have an expiration at or before `now` (milliseconds).
    func isExpired(now: Int64 = Clock.nowMilliseconds()) -> Bool {
        guard let expiration else { return false }
        return expiration <= now
    }

    /// The expiration as the AWS SDKs write it: `2026-05-26T12:34:56Z`.
    var expirationText: String? {
        expiration.map { String(Timestamp.rfc3339(milliseconds: $0).prefix(19)) + "Z" }
    }

    /// What vault stores: the object without `Version`, the expiration normalized to UTC.
    var stored: JSONShape { JSONShape(credentials: self, version: nil) }

    /// What `credential_process` prints: `{"Version":1,...}`.
    var processOutput: JSONShape { JSONShape(credentials: self, version: 1) }

    struct JSONShape: Encodable {
        var Version: Int?
        var AccessKeyId: String
        var SecretAccessKey: String
        var SessionToken: String?
        var Expiration: String?

        init(credentials: AWSCredentials, version: Int?) {
            Version = version
            AccessKeyId = credentials.accessKeyID
            SecretAccessKey = credentials.secretAccessKey
            SessionToken = credentials.sessionToken
            Expiration = credentials.expirationText
        }
    }

    static func problem(_ what: String) -> VaultError {
        .invalidInput("AWS credentials refused: \(what); expected {\"AccessKeyId\": \"...\", \"SecretAccessKey\": \"...\", optionally \"SessionToken\" and \"Expiration\" (RFC 3339)}")
    }

    /// The JSON object as read: every key known, every value checked.
    private struct Wire: Decodable {
        var credentials: AWSCredentials

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for key in container.allKeys where !AWSCredentials.fields.contains(key.stringValue) {
                // A key is named only when it looks like one, never echoing what may be a pasted secret.
                let name = key.stringValue
                let nameable = (1...40).contains(name.count) && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || $0 == "_" }
                throw AWSCredentials.problem(nameable ? "unknown field '\(name)'" : "an unknown field")
            }
            if container.contains(Key(stringValue: "Version")), try container.decodeNil(forKey: Key(stringValue: "Version")) == false {
                guard try container.decode(Int.self, forKey: Key(stringValue: "Version")) == 1 else {
                    throw AWSCredentials.problem("Version must be 1")
                }
            }
            func text(_ field: String, required: Bool) throws -> String? {
                let key = Key(stringValue: field)
                guard container.contains(key), try !container.decodeNil(forKey: key) else {
                    if required { throw AWSCredentials.problem("\(field) is missing") }
                    return nil
                }
                let value = try container.decode(String.self, forKey: key)
                if value.isEmpty { throw AWSCredentials.problem("\(field) is empty") }
                return value
            }
            let accessKeyID = try text("AccessKeyId", required: true)!
            let secretAccessKey = try text("SecretAccessKey", required: true)!
            let sessionToken = try text("SessionToken", required: false)
            let expirationText = try text("Expiration", required: false)

            try AWSCredentials.check("AccessKeyId", accessKeyID, maxLength: 128, allowed: { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") },
                                     rule: "letters, digits and _")
            try AWSCredentials.check("SecretAccessKey", secretAccessKey, maxLength: 1024, allowed: AWSCredentials.isVisibleASCII, rule: "printable ASCII without spaces")
            if let sessionToken {
                try AWSCredentials.check("SessionToken", sessionToken, maxLength: 16 * 1024, allowed: AWSCredentials.isVisibleASCII, rule: "printable ASCII without spaces")
            }
            var expiration: Int64?
            if let expirationText {
                guard let milliseconds = AWSCredentials.milliseconds(rfc3339: expirationText) else {
                    throw AWSCredentials.problem("Expiration is not an RFC 3339 time such as 2026-05-26T12:34:56Z")
                }
                expiration = milliseconds
            }
            credentials = AWSCredentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken, expiration: expiration)
        }
    }

    static func isVisibleASCII(_ scalar: Unicode.Scalar) -> Bool { (0x21...0x7E).contains(scalar.value) }

    static func check(_ field: String, _ value: String, maxLength: Int, allowed: (Unicode.Scalar) -> Bool, rule: String) throws {
        guard value.unicodeScalars.count <= maxLength else { throw problem("\(field) is longer than \(maxLength) characters") }
        guard value.unicodeScalars.allSatisfy(allowed) else { throw problem("\(field) may hold only \(rule)") }
    }

    /// An RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction (1 to 9 digits), then
    /// `Z` or `+HH:MM` / `-HH:MM` (the AWS CLI writes `+00:00`). Milliseconds since the epoch.
    static func milliseconds(rfc3339 text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 35 else { return nil }
        var base = Array(bytes[0..<19])
        guard base[10] == UInt8(ascii: "T") || base[10] == UInt8(ascii: "t") else { return nil }
        base[10] = UInt8(ascii: "T")
        var index = 19
        var fraction: Int64 = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            let digits = bytes[start..<index]
            guard (1...9).contains(digits.count) else { return nil }
            for (position, digit) in digits.prefix(3).enumerated() { fraction += Int64(digit - 48) * [100, 10, 1][position] }
        }
        guard index < bytes.count else { return nil }
        var offsetMinutes: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let zone = Array(bytes[(index + 1)...])
            guard zone.count == 5, zone[2] == UInt8(ascii: ":"),
                  [zone[0], zone[1], zone[3], zone[4]].allSatisfy({ (48...57).contains($0) }) else { return nil }
            let hours = Int64(zone[0] - 48) * 10 + Int64(zone[1] - 48), minutes = Int64(zone[3] - 48) * 10 + Int64(zone[4] - 48)
            guard hours < 24, minutes < 60 else { return nil }
            offsetMinutes = (hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        guard let seconds = Timestamp.milliseconds(rfc3339: String(decoding: base, as: UTF8.self) + "Z") else { return nil }
        return seconds + fraction - offsetMinutes * 60_000
    }
}
