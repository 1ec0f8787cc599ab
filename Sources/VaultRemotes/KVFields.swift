import Foundation
import VaultCore

/// The fields a client gives a remote secret in one write (`kv_put` without `field`): one JSON
/// object of strings, held to the limits an engine's answer is held to, each name a valid field.
public enum KVFields {
    public static func parse(_ text: String) throws(VaultError) -> [String: String] {
        let shape = "a JSON object of strings, like {\"username\":\"…\",\"password\":\"…\"}"
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw VaultError.invalidInput("the secret's fields must be \(shape)")
        }
        guard object.count <= EngineAnswer.maximumFields else {
            throw VaultError.tooLarge("a secret has at most \(EngineAnswer.maximumFields) fields")
        }
        var fields: [String: String] = [:]
        for (name, value) in object {
            guard let value = value as? String else { throw VaultError.invalidInput("the secret's fields must be \(shape)") }
            try check(name, value)
            fields[name] = value
        }
        return fields
    }

    /// One field as the engine would keep it: a valid name, a value within the size limit.
    public static func check(_ name: String, _ value: String) throws(VaultError) {
        if let problem = ItemKey.problem(with: name, field: "field") { throw VaultError.invalidInput(problem) }
        guard name.utf8.count <= EngineAnswer.maximumFieldName else {
            throw VaultError.invalidInput("a field's name is longer than \(EngineAnswer.maximumFieldName) bytes")
        }
        guard value.utf8.count <= EngineAnswer.maximumValue else {
            throw VaultError.tooLarge("the value of field '\(name.replacingControlCharacters())' is \(value.utf8.count) bytes; the limit is \(EngineAnswer.maximumValue)")
        }
    }
}
