import VaultClient
import VaultCore

/// A template for `vaultctl inject`: text with `{{ vault://... }}` placeholders (blanks inside the
/// braces allowed). Braces around anything that does not start with `vault://` are left as they
/// are, so a template may also hold another tool's `{{ ... }}`; an opening `{{ vault://` that never
/// closes on its line, or a reference that does not parse, is an error naming the line.
package struct Template {
    static let maxBytes = 1024 * 1024

    enum Part {
        case text([UInt8])
        case reference(SecretReference)
    }

    let parts: [Part]

    package var references: [SecretReference] {
        parts.compactMap { if case .reference(let reference) = $0 { reference } else { nil } }
    }

    package init(_ bytes: [UInt8], name: String) throws {
        var parts: [Part] = []
        var text: [UInt8] = []
        var index = 0
        let open = Array("{{".utf8), close = Array("}}".utf8)
        func line(_ at: Int) -> Int { bytes[..<at].filter { $0 == 10 }.count + 1 }
        while index < bytes.count {
            guard bytes[index...].starts(with: open) else {
                text.append(bytes[index])
                index += 1
                continue
            }
            var start = index + 2
            while start < bytes.count, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
            guard bytes[start...].starts(with: Array(SecretReference.scheme.utf8)) || bytes[start...].starts(with: Array(RemoteTarget.scheme.utf8)) else {
                text += open
                index += 2
                continue
            }
            var end = start
            while end < bytes.count, !bytes[end...].starts(with: close), bytes[end] != 10 { end += 1 }
            guard end < bytes.count, bytes[end...].starts(with: close) else {
                throw VaultError.invalidInput("\(name):\(line(index)): '{{ \(bytes[start] == UInt8(ascii: "k") ? RemoteTarget.scheme : SecretReference.scheme)' does not close with '}}' on its line")
            }
            var last = end
            while last > start, bytes[last - 1] == 32 || bytes[last - 1] == 9 { last -= 1 }
            guard let written = String(validating: bytes[start..<last], as: UTF8.self) else {
                throw VaultError.invalidInput("\(name):\(line(index)): the reference is not UTF-8")
            }
            do {
                let reference = try SecretReference(parsing: written)
                parts.append(.text(text))
                text = []
                parts.append(.reference(reference))
            } catch {
                throw VaultError.invalidInput("\(name):\(line(index)): \(error.message)")
            }
            index = end + 2
        }
        parts.append(.text(text))
        self.parts = parts
    }

    /// The text with each reference replaced by `values[reference]`.
    package func render(_ values: [SecretReference: SecretBytes]) -> [UInt8] {
        var output: [UInt8] = []
        for part in parts {
            switch part {
            case .text(let text): output += text
            case .reference(let reference): output += values[reference]?.unprotectedBytes ?? []
            }
        }
        return output
    }
}
