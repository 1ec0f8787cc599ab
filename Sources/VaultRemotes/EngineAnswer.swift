import Foundation
import VaultCore

/// Reads the engine's answers. Everything is hostile until checked: the status is classified
/// first (`check`), the body must be one JSON object whose fields have the documented types, and
/// every count and size is capped before it is kept. No error quotes a body (it may hold a
/// token or a secret); only the engine's `errors` strings, sanitised.
public enum EngineAnswer {
    /// Most fields one secret may have, and the longest name and value kept.
    public static let maximumFields = 1_000
    public static let maximumFieldName = 512
    public static let maximumValue = ItemLimits.maxSecretBytes
    /// Most keys one folder listing or one history may hold.
    public static let maximumKeys = 100_000

    /// Throws the `EngineError` of a status other than 2xx.
    public static func check(status: Int, body: Data) throws(EngineError) {
        switch status {
        case 200..<300: return
        case 300..<400: throw .redirect(status)
        case 400:
            let reason = errors(body)
            if reason.contains("check-and-set") { throw .checkAndSet }
            throw .rejected(400, reason)
        case 403: throw .forbidden(errors(body))
        case 404:
            let metadata = (object(body)?["data"] as? [String: Any])?["metadata"] as? [String: Any]
            let deleted = (metadata?["deletion_time"] as? String).flatMap { $0.isEmpty ? nil : EngineError.sanitized($0) }
            throw .notFound(deleted: deleted, version: metadata?["version"] as? Int)
        case 429, 502, 504: throw .busy(status)
        case 503: throw .sealed
        case 401..<500: throw .rejected(status, errors(body))
        default: throw .server(status)
        }
    }

    /// A login's token: `auth.client_token`, `auth.lease_duration`, `auth.renewable`.
    public static func token(_ body: Data, now: Double) throws(EngineError) -> EngineToken {
        guard let auth = try root(body)["auth"] as? [String: Any] else { throw .malformed("the login answer has no 'auth'") }
        return try token(auth, tokenKey: "client_token", leaseKey: "lease_duration", now: now)
    }

    /// `lookup-self`'s answer about the token in use: `data.ttl`, `data.renewable`, `data.id`.
    public static func lookup(_ body: Data, now: Double) throws(EngineError) -> EngineToken {
        guard let data = try root(body)["data"] as? [String: Any] else { throw .malformed("the token lookup has no 'data'") }
        return try token(data, tokenKey: "id", leaseKey: "ttl", now: now)
    }

    private static func token(_ object: [String: Any], tokenKey: String, leaseKey: String, now: Double) throws(EngineError) -> EngineToken {
        guard let value = object[tokenKey] as? String, value.isTokenShaped else { throw .malformed("the answer's token is missing or not a token") }
        guard let lease = number(object[leaseKey]), lease >= 0, lease <= DurationText.maximum else {
            throw .malformed("the answer's '\(leaseKey)' is not a number of seconds")
        }
        return EngineToken(value: value, lease: lease, renewable: object["renewable"] as? Bool ?? false, now: now)
    }

    /// `GET …/data/PATH`: `data.data` (the fields) and `data.metadata` (version, created_time).
    public static func secret(_ body: Data) throws(EngineError) -> KVSecret {
        guard let data = try root(body)["data"] as? [String: Any] else { throw .malformed("the secret's answer has no 'data'") }
        guard let metadata = data["metadata"] as? [String: Any], let version = metadata["version"] as? Int, version > 0 else {
            throw .malformed("the secret's answer has no version (is the mount KV version 2?)")
        }
        guard let raw = data["data"] as? [String: Any] else {
            throw .notFound(deleted: (metadata["deletion_time"] as? String).map(EngineError.sanitized), version: version)
        }
        guard raw.count <= maximumFields else { throw .malformed("the secret has more than \(maximumFields) fields") }
        var fields: [String: String] = [:]
        for (name, value) in raw {
            guard !name.isEmpty, name.utf8.count <= maximumFieldName else { throw .malformed("a field's name is empty or longer than \(maximumFieldName) bytes") }
            let text: String
            if let string = value as? String {
                text = string
            } else if let encoded = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) {
                text = String(decoding: encoded, as: UTF8.self)
            } else {
                throw .malformed("field '\(EngineError.sanitized(name))' has a value vault cannot read")
            }
            guard text.utf8.count <= maximumValue else { throw .malformed("a field's value is larger than \(maximumValue / 1024) KiB") }
            fields[name] = text
        }
        return KVSecret(fields: fields, version: version, created: EngineError.sanitized(metadata["created_time"] as? String ?? ""))
    }

    /// `GET …/metadata/PATH`: `data.current_version` and `data.versions`.
    public static func metadata(_ body: Data) throws(EngineError) -> KVMetadata {
        guard let data = try root(body)["data"] as? [String: Any], let current = data["current_version"] as? Int, current >= 0 else {
            throw .malformed("the metadata has no 'current_version'")
        }
        let raw = data["versions"] as? [String: Any] ?? [:]
        guard raw.count <= maximumKeys else { throw .malformed("the metadata lists more than \(maximumKeys) versions") }
        var versions: [KVVersion] = []
        for (key, value) in raw {
            guard let number = Int(key), number > 0, let entry = value as? [String: Any] else { throw .malformed("a version in the metadata is not a number with its details") }
            versions.append(KVVersion(
                version: number, created: EngineError.sanitized(entry["created_time"] as? String ?? ""),
                deleted: EngineError.sanitized(entry["deletion_time"] as? String ?? ""), destroyed: entry["destroyed"] as? Bool ?? false))
        }
        return KVMetadata(currentVersion: current, versions: versions.sorted { $0.version < $1.version })
    }

    /// A write's answer: `data.version`.
    public static func writtenVersion(_ body: Data) throws(EngineError) -> Int {
        guard let data = try root(body)["data"] as? [String: Any], let version = data["version"] as? Int, version > 0 else {
            throw .malformed("the write's answer has no version")
        }
        return version
    }

    /// `LIST …/metadata/PREFIX/`: `data.keys`, folders ending in `/`.
    public static func keys(_ body: Data) throws(EngineError) -> [String] {
        guard let data = try root(body)["data"] as? [String: Any], let keys = data["keys"] as? [Any] else {
            throw .malformed("the listing has no 'keys'")
        }
        guard keys.count <= maximumKeys else { throw .malformed("the listing has more than \(maximumKeys) keys") }
        var names: [String] = []
        for key in keys {
            guard let name = key as? String, KVPath.problem(with: name, folder: true) == nil, !name.isEmpty else {
                throw .malformed("the listing holds a name that is not a path")
            }
            names.append(name)
        }
        return names.sorted()
    }

    // MARK: JSON

    static func root(_ body: Data) throws(EngineError) -> [String: Any] {
        guard let object = object(body) else { throw .malformed("the answer is not a JSON object") }
        return object
    }

    static func object(_ body: Data) -> [String: Any]? {
        guard !body.isEmpty else { return nil }
        return (try? JSONSerialization.jsonObject(with: body, options: [])) as? [String: Any]
    }

    /// The engine's `errors`, sanitised and joined; empty when it gave none.
    static func errors(_ body: Data) -> String {
        guard let list = object(body)?["errors"] as? [Any] else { return "" }
        return EngineError.sanitized(list.prefix(3).compactMap { $0 as? String }.joined(separator: "; "))
    }

    static func number(_ value: Any?) -> Double? {
        if let int = value as? Int { return Double(int) }
        if let double = value as? Double, double.isFinite { return double }
        return nil
    }
}
