/// JSON text written by hand where the order and escaping must be exact: an object of strings
/// with sorted keys, as `JSONEncoder` with `.sortedKeys` writes it (`/` escaped as `\/`).
enum JSONText {
    static func object(_ fields: [String: String]) -> String {
        "{" + fields.keys.sorted().map { string($0) + ":" + string(fields[$0]!) }.joined(separator: ",") + "}"
    }

    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += "\\/"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20:
                let hex = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
